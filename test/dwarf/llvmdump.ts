/**
 * Test helper: parse `llvm-dwarfdump --debug-info` text into a DIE tree, and turn the decoder's
 * tree into the same shape, with attribute values in a canonical comparable form.
 *
 * Systematic differences between the PTX's DWARF and the cubin's (ptxas rewrites them) are
 * normalised here, each one checked rather than ignored:
 *
 * 1. Addresses: DW_AT_low_pc/high_pc and location-list bounds are PTX labels in the PTX and SASS
 *    offsets in the cubin. Compared: presence only (and, for lists, the number of entries).
 * 2. `DW_OP_addr __local_depotN` (locals in the local depot, address class 6) becomes
 *    `DW_OP_fbreg -F` padded with DW_OP_nop to the same 9 bytes, where F is the size of the
 *    function's stack frame, which holds the depot at its bottom: usually the depot size rounded
 *    up to 8, more when the function also spills or builds call arguments on the stack.
 *    Checked: the PTX symbol is the depot of the function owning the DIE, and F is a multiple
 *    of 8 with F >= alignUp(depot size, 8). The offset (DW_OP_plus_uconst) must be identical.
 * 3. `DW_OP_addr <kernel>_param_N` (address class 7) becomes the parameter's offset in constant
 *    bank 0: 0x160 + offset of param N in the `.entry` parameter layout (natural alignment).
 *    Checked exactly.
 * 4. `DW_OP_addr <variable>` for `.shared/.global/.const` variables becomes the variable's
 *    allocated address, unknowable from the PTX. Checked: the relocation resolves to a variable
 *    whose state space matches DW_AT_address_class.
 * 5. `DW_OP_regx` operands: the cubin dump prints the packed ASCII as hex (0x257231); we decode
 *    both to names (%r1).
 */
import type { FunctionDecl, PtxModule, VarDecl } from '../../src/ptx/ast.js';
import { ADDR_CLASS, attrName, DW_AT, DW_OP, tagName } from '../../dwarf/src/index.js';
import type { AttrValue, Dwarf } from '../../dwarf/src/index.js';
import { ptxRegisterName, type Operation } from '../../dwarf/src/index.js';
import type { Die, DieNode } from '../../dwarf/src/index.js';
import { typeName, TypeTable } from '../../dwarf/src/index.js';

export interface CanonDie {
  readonly offset: number;
  readonly tag: string;
  readonly attrs: [string, string][];
  readonly children: CanonDie[];
}

// ---- llvm-dwarfdump text ------------------------------------------------------------------------

export function parseLlvmDump(text: string): CanonDie[] {
  const lines = text.split('\n');
  const roots: CanonDie[] = [];
  const stack: { die: CanonDie; depth: number }[] = [];
  let current: CanonDie | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^0x([0-9a-f]{8}):( +)(DW_TAG_\w+|NULL|DW_TAG_\S+.*)$/.exec(line);
    if (m && !line.includes('Compile Unit:')) {
      const depth = (m[2]!.length - 1) / 2;
      if (m[3] === 'NULL') {
        current = undefined;
        continue;
      }
      const die: CanonDie = { offset: parseInt(m[1]!, 16), tag: m[3]!, attrs: [], children: [] };
      while (stack.length && stack[stack.length - 1]!.depth >= depth) stack.pop();
      if (stack.length) stack[stack.length - 1]!.die.children.push(die);
      else roots.push(die);
      stack.push({ die, depth });
      current = die;
      continue;
    }
    const a = /^\s+(DW_AT_\w+)\t\((.*)$/.exec(line);
    if (a && current) {
      let value = a[2]!;
      if (/^0x[0-9a-f]+: $/.test(value)) {
        // A location list: one "[begin, end): ops" line per entry, the last one ending in ")".
        while (i + 1 < lines.length && /^\s+\[/.test(lines[i + 1]!)) {
          value += '\n' + lines[++i]!;
        }
      } else {
        while (!balanced(value) && i + 1 < lines.length) value += '\n' + lines[++i]!;
      }
      value = value.replace(/\)$/, '');
      current.attrs.push([a[1]!, canonRefValue(a[1]!, value)]);
    }
  }
  normaliseVariableAddresses(roots);
  return roots;
}

/** Rewrite 4: `DW_OP_addr <allocated address>` of .shared/.global/.const variables. */
function normaliseVariableAddresses(dies: CanonDie[]): void {
  for (const d of dies) {
    const cls = d.attrs.find(([k]) => k === 'DW_AT_address_class')?.[1];
    if (cls === '4' || cls === '5' || cls === '8') {
      for (const a of d.attrs) if (a[0] === 'DW_AT_location') a[1] = a[1].replace(/DW_OP_addr 0x[0-9a-f]+/g, 'DW_OP_addr <variable>');
    }
    normaliseVariableAddresses(d.children);
  }
}

function balanced(s: string): boolean {
  let depth = 1;
  let inStr = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
  }
  return depth === 0;
}

function canonOpText(ops: string): string {
  return ops.split(', ').map((op) => {
    const rx = /^DW_OP_(regx|bregx) (0x[0-9a-f]+)(.*)$/.exec(op);
    if (rx) return `DW_OP_${rx[1]} ${ptxRegisterName(BigInt(rx[2]!)) ?? rx[2]}${rx[3]}`;
    return op;
  }).join(', ');
}

function canonRefValue(attr: string, v: string): string {
  if (attr === 'DW_AT_low_pc' || attr === 'DW_AT_high_pc') return '<addr>';
  const str = /^"(.*)"$/s.exec(v);
  const ref = /^0x([0-9a-f]+) "(.*)"$/s.exec(v);
  if (ref) return `ref ${ref[2]}`;
  if (str) return JSON.parse(v) as string;
  if (attr === 'DW_AT_location' || attr === 'DW_AT_frame_base' || attr === 'DW_AT_data_member_location') {
    const list = /^0x[0-9a-f]+: \n?([\s\S]*)$/.exec(v);
    if (list) {
      const entries = list[1]!.split('\n').map((l) => l.trim()).filter(Boolean)
        .map((l) => canonOpText(l.replace(/^\[[^)]*\): /, '')));
      return `list[${entries.join(' | ')}]`;
    }
    return canonOpText(v);
  }
  if (/^0x[0-9a-f]+$/.test(v)) return BigInt(v).toString();
  if (/^-?\d+$/.test(v)) return v;
  if (v === 'true') return '1';
  if (v === 'false') return '0';
  return v;
}

// ---- the decoder's tree ---------------------------------------------------------------------------

export interface OurSide {
  readonly trees: CanonDie[];
  /** Violations of the documented ptxas rewrites found while canonicalising (should be empty). */
  readonly problems: string[];
}

function alignUp(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

const TYPE_SIZE: Readonly<Record<string, number>> = {
  b8: 1, u8: 1, s8: 1, b16: 2, u16: 2, s16: 2, f16: 2, b32: 4, u32: 4, s32: 4, f32: 4,
  b64: 8, u64: 8, s64: 8, f64: 8, pred: 1, f16x2: 4, bf16: 2, bf16x2: 4,
};

function varSize(v: VarDecl): { size: number; align: number } {
  const elem = (TYPE_SIZE[v.type] ?? 4) * v.vector;
  const count = v.dims.reduce<number>((n, d) => n * (d ?? 0), 1);
  return { size: elem * count, align: v.align ?? elem };
}

/** Offset of each kernel parameter in the param layout. */
function paramOffsets(fn: FunctionDecl): Map<string, number> {
  const m = new Map<string, number>();
  let off = 0;
  for (const p of fn.params) {
    const { size, align } = varSize(p);
    off = alignUp(off, align);
    m.set(p.name, off);
    off += size;
  }
  return m;
}

export function ourTrees(dwarf: Dwarf, module: PtxModule): OurSide {
  const types = new TypeTable(dwarf);
  const problems: string[] = [];
  const fns = new Map<string, FunctionDecl>();
  for (const it of module.items) if (it.kind === 'function' && it.body) fns.set(it.name, it);
  const depotSize = (name: string, fn: string | undefined): number | undefined => {
    const f = fn ? fns.get(fn) : undefined;
    const v = f?.body?.find((s): s is VarDecl => s.kind === 'var' && s.name === name);
    return v ? varSize(v).size : undefined;
  };
  const enclosingFunction = (n: DieNode): string | undefined => {
    for (let p: DieNode | undefined = n; p; p = p.parent) {
      const name = p.die.string(DW_AT.MIPS_linkage_name) ?? p.die.string(DW_AT.linkage_name);
      if (name && p.die.tag === 0x2e) return name;
    }
    return undefined;
  };

  const canonOps = (ops: readonly Operation[], n: DieNode, where: string): string => {
    const cls = n.die.udata(DW_AT.address_class);
    return ops.map((op) => {
      if (op.code === DW_OP.regx || op.code === DW_OP.bregx) {
        const reg = op.register ?? `0x${op.operands[0]!.toString(16)}`;
        return op.code === DW_OP.regx ? `DW_OP_regx ${reg}` : `DW_OP_bregx ${reg}`;
      }
      if (op.code === DW_OP.addr) {
        const r = op.reloc;
        if (!r || r.target.kind !== 'variable') {
          problems.push(`${where}: DW_OP_addr without a variable relocation`);
          return 'DW_OP_addr ?';
        }
        if (r.symbol.startsWith('__local_depot')) {
          if (cls !== ADDR_CLASS.local) problems.push(`${where}: depot address with address class ${cls}`);
          const fn = enclosingFunction(n);
          if (r.target.function !== fn) problems.push(`${where}: ${r.symbol} belongs to ${r.target.function}, DIE is in ${fn}`);
          const size = depotSize(r.symbol, r.target.function);
          return size === undefined ? 'DW_OP_fbreg ?' : `DW_OP_fbreg <frame >= ${alignUp(size, 8)}><nops>`;
        }
        if (r.target.space === 'param') {
          if (cls !== ADDR_CLASS.param) problems.push(`${where}: param symbol with address class ${cls}`);
          const f = r.target.function ? fns.get(r.target.function) : undefined;
          const off = f?.isEntry ? paramOffsets(f).get(r.symbol) : undefined;
          return off === undefined ? `DW_OP_addr <param ${r.symbol}>` : `DW_OP_addr 0x${(0x160 + off + Number(r.addend)).toString(16)}`;
        }
        const want: Record<string, number> = { shared: ADDR_CLASS.shared, global: ADDR_CLASS.global, const: ADDR_CLASS.const };
        if (want[r.target.space] !== undefined && cls !== undefined && want[r.target.space] !== cls) {
          problems.push(`${where}: ${r.symbol} is .${r.target.space} but DW_AT_address_class is ${cls}`);
        }
        return 'DW_OP_addr <variable>';
      }
      const text = op.operands.length ? `${op.name} ${op.operands.map((v) => (op.code === DW_OP.fbreg || op.code === DW_OP.consts ? `${v}` : `0x${v.toString(16)}`)).join(' ')}` : op.name;
      return text;
    }).join(', ');
  };

  const canonValue = (n: DieNode, name: number, v: AttrValue, where: string): string => {
    if (name === DW_AT.low_pc || name === DW_AT.high_pc) return '<addr>';
    switch (v.kind) {
      case 'string': return v.value;
      case 'constant': return v.value.toString();
      case 'flag': return v.value ? '1' : '0';
      case 'enum': return name === DW_AT.address_class ? `${v.value}` : v.name;
      case 'file': return v.name ?? `${v.index}`;
      case 'reference': return `ref ${v.die ? (name === DW_AT.type ? typeName(types.typeOf(v.die), 'llvm') : v.die.string(DW_AT.MIPS_linkage_name) ?? v.die.string(DW_AT.linkage_name) ?? v.die.name ?? '') : '?'}`;
      case 'expression': return canonOps(v.ops, n, where);
      case 'locationList':
        return `list[${v.entries.map((e) => canonOps(dwarf.expression(n.die.unit, e.expression).ops, n, where)).join(' | ')}]`;
      case 'sectionOffset': return `${v.offset}`;
      case 'address': return '<addr>';
      default: return `<${v.kind}>`;
    }
  };

  const convert = (n: DieNode): CanonDie => {
    const die: Die = n.die;
    const attrs: [string, string][] = die.attributes().map((a) => {
      const where = `${tagName(die.tag)} at 0x${die.sectionOffset.toString(16)} ${attrName(a.name)}`;
      return [attrName(a.name), canonValue(n, a.name, dwarf.value(die, a), where)];
    });
    return { offset: die.sectionOffset, tag: tagName(die.tag), attrs, children: n.children.map(convert) };
  };
  const trees: CanonDie[] = [];
  for (const u of dwarf.units()) {
    const r = u.root();
    if (r) trees.push(convert(r));
  }
  return { trees, problems };
}

/** Canonicalise the reference side's fbreg+nop rewrite to "DW_OP_fbreg -F<nops>". */
export function foldNops(v: string): string {
  return v.replace(/(DW_OP_fbreg -\d+)(, DW_OP_nop)+/g, '$1<nops>');
}

/** Equal, or equal up to the frame-size rule of rewrite 2. */
function attrMatches(ref: string | undefined, ours: string | undefined): boolean {
  if (ref === ours) return true;
  if (ref === undefined || ours === undefined) return false;
  const frames: number[] = [];
  const pattern = ours.split(/DW_OP_fbreg <frame >= (\d+)>/).map((part, i) => {
    if (i % 2 === 1) {
      frames.push(Number(part));
      return 'DW_OP_fbreg -(\\d+)';
    }
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join('');
  if (!frames.length) return false;
  const m = new RegExp(`^${pattern}$`).exec(ref);
  return !!m && frames.every((min, i) => {
    const f = Number(m[i + 1]);
    return f % 8 === 0 && f >= min;
  });
}

/** First differences between two canonical forests (empty when equal). */
export function diffTrees(ref: CanonDie[], ours: CanonDie[], limit = 20): string[] {
  const out: string[] = [];
  const walk = (a: CanonDie | undefined, b: CanonDie | undefined, path: string): void => {
    if (out.length >= limit) return;
    if (!a || !b) {
      out.push(`${path}: ${a ? `reference has ${a.tag} at 0x${a.offset.toString(16)}, decoder has nothing` : `decoder has extra ${b!.tag} at 0x${b!.offset.toString(16)}`}`);
      return;
    }
    const here = `${path}/${a.tag}@0x${a.offset.toString(16)}`;
    if (a.tag !== b.tag) out.push(`${here}: tag ${a.tag} vs ${b.tag}`);
    if (a.offset !== b.offset) out.push(`${here}: offset 0x${a.offset.toString(16)} vs 0x${b.offset.toString(16)}`);
    const am = a.attrs.map(([k, v]) => `${k}=${foldNops(v)}`);
    const bm = b.attrs.map(([k, v]) => `${k}=${v}`);
    if (am.join('\n') !== bm.join('\n')) {
      for (let i = 0; i < Math.max(am.length, bm.length); i++) {
        if (!attrMatches(am[i], bm[i])) out.push(`${here}: attribute ${i}: reference ${JSON.stringify(am[i])} vs decoder ${JSON.stringify(bm[i])}`);
      }
    }
    const n = Math.max(a.children.length, b.children.length);
    for (let i = 0; i < n; i++) walk(a.children[i], b.children[i], here);
  };
  const n = Math.max(ref.length, ours.length);
  for (let i = 0; i < n; i++) walk(ref[i], ours[i], '');
  return out;
}

export function countDies(t: CanonDie[]): number {
  return t.reduce((n, d) => n + 1 + countDies(d.children), 0);
}
