/**
 * `dumpDebugInfo`: the DIE tree in the style of `llvm-dwarfdump --debug-info`, with CUDA
 * specifics decoded: PTX register names (`DW_OP_regx %r1`), relocated symbols
 * (`DW_OP_addr _Z6vecAddPKfS0_Pfi_param_0`, `DW_AT_low_pc (0x0000000000000000 "$L__func_begin0")`),
 * address classes (`DW_AT_address_class (0x07 ADDR_param_space)`), and file names.
 * (`ptxdbg dwarf kernel.ptx`, which reads PTX, is the CLI's: src/cli/dwarf.ts.)
 */
import { attrName, DW_AT, tagName } from './constants.js';
import type { AttrValue, Dwarf } from './dwarf.js';
import { formatOperations } from './expr.js';
import type { Attribute, Die, DieNode, Unit } from './info.js';
import type { Bound } from './lists.js';
import { typeName, TypeTable } from './types.js';

const hex = (v: number | bigint, width: number): string => '0x' + v.toString(16).padStart(width, '0');

function bound(b: Bound): string {
  const s = hex(b.address, 16);
  return b.reloc && b.reloc.target.kind !== 'unresolved' ? `${s} "${b.reloc.symbol}${b.reloc.addend ? `+${b.reloc.addend}` : ''}"` : s;
}

/** Print one attribute value (the part inside the parentheses). */
export function formatAttributeValue(dwarf: Dwarf, types: TypeTable, die: Die, attr: Attribute, indent: string): string {
  const v: AttrValue = dwarf.value(die, attr);
  const raw = attr.raw;
  const sized = (x: bigint): string => {
    const size = raw.kind === 'data' ? raw.size : 0;
    return size ? hex(BigInt.asUintN(size * 8, x), size * 2) : `${x}`;
  };
  switch (v.kind) {
    case 'address': return bound({ address: v.value, reloc: v.reloc });
    case 'highPcOffset': return hex(v.value, 8);
    case 'constant':
      if (v.signed) return `${v.value}`;
      if (raw.kind === 'udata') return `${v.value}`;
      return attr.name === DW_AT.decl_line || attr.name === DW_AT.call_line ? `${v.value}` : sized(v.value);
    case 'flag': return v.value ? '0x01' : '0x00';
    case 'string': return JSON.stringify(v.value);
    case 'reference': {
      const t = v.die ? (isTypeRef(attr.name) ? typeName(types.typeOf(v.die), 'llvm') : v.die.name) : undefined;
      return t === undefined ? hex(v.offset, 8) : `${hex(v.offset, 8)} "${t}"`;
    }
    case 'expression': return formatOperations(v.ops) + (v.error ? ` <error: ${v.error}>` : '');
    case 'locationList': {
      const lines = v.entries.map((e) => {
        const ops = dwarf.expression(die.unit, e.expression).ops;
        return `\n${indent}   [${bound(e.begin)}, ${bound(e.end)}): ${formatOperations(ops)}`;
      });
      return `${hex(v.offset, 8)}: ${lines.join('')}`;
    }
    case 'rangeList': {
      const lines = v.ranges.map((r) => `\n${indent}   [${bound(r.begin)}, ${bound(r.end)})`);
      return `${hex(v.offset, 8)}${lines.join('')}`;
    }
    case 'sectionOffset': return hex(v.offset, 8);
    case 'file': return v.name === undefined ? `${v.index}` : JSON.stringify(v.name);
    case 'enum':
      if (attr.name === DW_AT.address_class) return `${sized(BigInt(v.value))} ${v.name}`;
      return v.name;
    case 'block': return `<${v.bytes.length} bytes: ${Array.from(v.bytes, (b) => hex(b, 2)).join(' ')}>`;
    case 'unsupported': return `<${v.what}>`;
  }
}

function isTypeRef(at: number): boolean {
  return at === DW_AT.type || at === DW_AT.containing_type;
}

function dumpUnit(dwarf: Dwarf, types: TypeTable, unit: Unit, out: string[]): void {
  const h = unit.header;
  out.push(
    `${hex(h.offset, 8)}: Compile Unit: length = ${hex(h.length, 8)}, format = DWARF${h.format === 4 ? 32 : 64}, ` +
    `version = ${hex(h.version, 4)}, abbr_offset = ${hex(h.abbrevOffset, 4)}, addr_size = ${hex(h.addressSize, 2)} ` +
    `(next unit at ${hex(h.end, 8)})`,
    '',
  );
  const root = unit.root();
  if (!root) return;
  const walk = (n: DieNode, depth: number): void => {
    const pad = ' '.repeat(2 * depth);
    out.push(`${hex(n.die.sectionOffset, 8)}: ${pad}${tagName(n.die.tag)}`);
    const indent = ' '.repeat(14 + 2 * depth);
    for (const a of n.die.attributes()) {
      let text: string;
      try {
        text = formatAttributeValue(dwarf, types, n.die, a, indent);
      } catch (e) {
        dwarf.warnings.error(e, '.debug_info', a.offset);
        text = '<error>';
      }
      out.push(`${indent}${attrName(a.name)}\t(${text})`);
    }
    out.push('');
    for (const c of n.children) walk(c, depth + 1);
    if (n.die.hasChildren) {
      if (n.childrenEnd !== undefined) out.push(`${hex(n.childrenEnd, 8)}: ${' '.repeat(2 * (depth + 1))}NULL`, '');
    }
  };
  walk(root, 0);
}

/** The `.debug_info` dump of a decoded module (llvm-dwarfdump style). */
export function dumpDebugInfo(dwarf: Dwarf): string {
  const types = new TypeTable(dwarf);
  const out: string[] = ['.debug_info contents:'];
  for (const unit of dwarf.units()) {
    try {
      dumpUnit(dwarf, types, unit, out);
    } catch (e) {
      dwarf.warnings.error(e, '.debug_info', unit.offset);
    }
  }
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
