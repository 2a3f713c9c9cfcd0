/**
 * Resolving one function's body (see resolve.ts): its registers and variables in nested scopes,
 * labels, operands and instructions, and its frame layout.
 */
import type { FunctionDecl, Initializer, Instruction, Operand, Span, Statement, StructDecl, VarDecl } from './ast.js';
import { typeRuleError } from './typerules.js';
import { isVideoOpcode, splitSelectors } from './selectors.js';
import { typeSize } from './types.js';
import { spaceInitError } from './space-init.js';
import { alignUp, isUnsizedParam, type ProgFunction, type RegInfo, type RInstruction, type ROperand, type VarInfo, varSize } from './program.js';

const SPECIALS: ReadonlySet<string> = new Set([
  'tid', 'ntid', 'ctaid', 'nctaid', 'laneid', 'warpid', 'nwarpid', 'smid', 'nsmid', 'gridid',
  'clock', 'clock64', 'clock_hi', 'globaltimer', 'globaltimer_lo', 'globaltimer_hi', 'lanemask_eq',
  'lanemask_le', 'lanemask_lt', 'lanemask_ge', 'lanemask_gt', 'dynamic_smem_size', 'total_smem_size',
  'aggr_smem_size', 'is_explicit_cluster', 'clusterid', 'nclusterid', 'cluster_ctaid', 'cluster_nctaid',
  'cluster_ctarank', 'cluster_nctarank', 'current_graph_exec',
]);

function specialOf(name: string): { name: string; comp: number } | undefined {
  const body = name.charCodeAt(0) === 37 ? name.slice(1) : name;
  const dot = body.indexOf('.');
  const base = dot < 0 ? body : body.slice(0, dot);
  const compStr = dot < 0 ? '' : body.slice(dot + 1);
  // ISA 1.1 spells components numerically: %tid.0 is %tid.x (PTX ISA 1.1, %tid)
  const comp = compStr === '' || compStr === 'x' || compStr === '0' ? 0 : compStr === 'y' || compStr === '1' ? 1
    : compStr === 'z' || compStr === '2' ? 2 : compStr === 'w' || compStr === '3' ? 3 : -1;
  if (comp < 0) return undefined;
  if (SPECIALS.has(base)) return { name: base, comp };
  if (/^(envreg\d+|pm\d+|pm\d+_64|reserved_smem_offset_\w+)$/.test(base)) return { name: base, comp };
  return undefined;
}

type Sym = { kind: 'reg'; reg: RegInfo } | { kind: 'var'; v: VarInfo } | { kind: 'proto' };

export class Scope {
  readonly names = new Map<string, Sym>();
  constructor(readonly parent: Scope | undefined) {}
  lookup(name: string): Sym | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const hit = s.names.get(name);
      if (hit) return hit;
    }
    return undefined;
  }
}

/**
 * ISA 1.1 struct member operands (`[p.x]`, `p.a.b`): the variable `p` plus the byte offset of
 * the field, fields laid out one after another (a union's all at 0), as the ISA 1.1 text says.
 */
function structMember(name: string, scope: Scope, structs: Map<string, StructDecl>): { v: VarInfo; offset: bigint } | undefined {
  const path = name.split('.');
  if (path.length < 2) return undefined;
  const base = scope.lookup(path[0]!);
  if (base?.kind !== 'var') return undefined;
  let type = base.v.decl.type;
  let offset = 0;
  for (const field of path.slice(1)) {
    const st = structs.get(type);
    if (!st) return undefined;
    let at = 0;
    let hit: VarDecl | undefined;
    for (const f of st.fields) {
      if (f.name === field) {
        hit = f;
        break;
      }
      if (!st.isUnion) at += varSize(f, structs);
    }
    if (!hit) return undefined;
    offset += at;
    type = hit.type;
  }
  return { v: base.v, offset: BigInt(offset) };
}

export function makeVar(decl: VarDecl, structs: Map<string, StructDecl>, storage: VarInfo['storage']): VarInfo {
  const size = varSize(decl, structs);
  const natural = Math.max(1, Math.min(16, typeSize(decl.type) * (decl.vector === 3 ? 4 : decl.vector) || 1));
  return { name: decl.name, space: decl.space, decl, size, align: decl.align ?? natural, frameOffset: 0, storage };
}

/** What resolving one function needs from its module, and where it reports. */
export interface ModuleContext {
  readonly moduleScope: Scope;
  readonly structs: Map<string, StructDecl>;
  readonly functionNames: Set<string>;
  readonly sharedOut: VarInfo[];
  readonly globalsOut: VarInfo[];
  readonly callPrototypes: Set<string>;
  readonly err: (m: string, s: Span) => void;
  /** The module's `.version` (ISA 1.x forms: space-init.ts). */
  readonly version?: string | undefined;
}

export function resolveFunction(
  decl: FunctionDecl,
  moduleScope: Scope,
  structs: Map<string, StructDecl>,
  functionNames: Set<string>,
  sharedOut: VarInfo[],
  globalsOut: VarInfo[],
  callPrototypes: Set<string>,
  err: (m: string, s: Span) => void,
  moduleRegs: readonly VarDecl[] = [],
  version?: string,
): ProgFunction {
  const r = new FunctionResolver(decl, { moduleScope, structs, functionNames, sharedOut, globalsOut, callPrototypes, err, version });
  // declarations, then labels (function-scoped, may be used before definition), then the body's
  // statements in order, then their operands against the scopes they were written in
  for (const d of moduleRegs) r.declareVar(r.fnScope, d);
  const moduleRegSlots = r.regs.length;
  r.bindParams();
  r.collectLabels(decl.body ?? [], { n: 0 });
  r.walk(decl.body ?? [], r.fnScope);
  for (const { ins, scope } of r.pending) r.instrs.push(r.resolveInstruction(ins, scope));
  return r.finish(moduleRegSlots);
}

/**
 * One function's resolution, by job: declarations (registers, vector registers, variables and
 * their frame places, parameters), labels and statements, operands, and the finished function.
 */
class FunctionResolver {
  readonly regs: RegInfo[] = [];
  readonly frameVars: VarInfo[] = [];
  readonly fnScope: Scope;
  frameSize = 0;
  /** Registers declared `.v2`/`.v4`: the vector's base register → its components. */
  readonly vectorRegs = new Map<RegInfo, RegInfo[]>();
  readonly params: VarInfo[] = [];
  readonly unsized: VarInfo[] = [];
  readonly rets: VarInfo[] = [];
  readonly paramRegs: (RegInfo | undefined)[] = [];
  readonly retRegs: (RegInfo | undefined)[] = [];
  readonly instrs: RInstruction[] = [];
  readonly labels = new Map<string, number>();
  readonly labelOf = new Map<string, number>();
  readonly locs: { file: number; line: number; col: number }[] = [];
  curLoc = { file: -1, line: 0, col: 0 };
  readonly pending: { ins: Instruction; scope: Scope }[] = [];
  private readonly structs: Map<string, StructDecl>;
  private readonly err: (m: string, s: Span) => void;

  constructor(readonly decl: FunctionDecl, private readonly mod: ModuleContext) {
    this.fnScope = new Scope(mod.moduleScope);
    this.structs = mod.structs;
    this.err = mod.err;
  }

  placeInFrame(v: VarInfo): void {
    this.frameSize = alignUp(this.frameSize, v.align);
    v.frameOffset = this.frameSize;
    this.frameSize += Math.max(v.size, 1);
    this.frameVars.push(v);
  }

  asVector(reg: RegInfo, span: Span): ROperand | undefined {
    const comps = this.vectorRegs.get(reg);
    return comps ? { kind: 'vec', items: comps.map((c) => ({ kind: 'reg', reg: c, span })), span } : undefined;
  }

  declareReg(scope: Scope, name: string, type: string, span: Span, init?: Initializer): RegInfo {
    const reg: RegInfo = init === undefined || init.kind === 'list' || init.kind === 'sym' ? { name, type, slot: this.regs.length } : { name, type, slot: this.regs.length, init };
    if (init !== undefined && (init.kind === 'sym' || (init.kind === 'list' && init.items.some((x) => x.kind !== 'int' && x.kind !== 'float')))) {
      this.err(`register '${name}' can only be initialized with constants`, span);
    }
    this.regs.push(reg);
    if (scope.names.has(name) && scope.names.get(name)?.kind === 'reg') this.err(`register '${name}' declared twice in the same scope`, span);
    scope.names.set(name, { kind: 'reg', reg });
    return reg;
  }

  declareVar(scope: Scope, d: VarDecl): void {
    if (d.space === 'reg') {
      const one = (name: string): void => {
        if (d.vector <= 1) { this.declareReg(scope, name, d.type, d.span, d.init); return; }
        // `.reg .v4 .f32 v`: components v.x .. v.w (also .r .g .b .a) are registers of their own;
        // the whole vector, named as an operand, stands for the brace list of its components
        const base = this.declareReg(scope, name, d.type, d.span);
        // a scalar initializer is spread over the components (ISA 1.1, Table 10)
        const compInit = (i: number): Initializer | undefined => (d.init?.kind === 'list' ? d.init.items[i] : d.init);
        const comps = ['x', 'y', 'z', 'w'].slice(0, d.vector).map((c, i) => this.declareReg(scope, `${name}.${c}`, d.type, d.span, compInit(i)));
        // ISA 1.1 also names them .0-.3; later PTX .r .g .b .a
        ['r', 'g', 'b', 'a'].slice(0, d.vector).forEach((c, i) => scope.names.set(`${name}.${c}`, { kind: 'reg', reg: comps[i]! }));
        comps.forEach((reg, i) => scope.names.set(`${name}.${i}`, { kind: 'reg', reg }));
        this.vectorRegs.set(base, comps);
      };
      if (d.rangeCount !== undefined) {
        for (let i = 0; i < d.rangeCount; i++) one(d.name + i);
      } else one(d.name);
      return;
    }
    const initWhy = spaceInitError(d, this.mod.version);
    if (initWhy) this.err(initWhy, d.span);
    if (d.space === 'shared') {
      const v = makeVar(d, this.structs, 'cta');
      this.mod.sharedOut.push(v);
      scope.names.set(d.name, { kind: 'var', v });
      return;
    }
    if (d.space === 'global' || d.space === 'const') {
      // ptxas accepts module-lifetime variables declared in a body; only the name is scoped
      const v = makeVar(d, this.structs, 'module');
      this.mod.globalsOut.push(v);
      scope.names.set(d.name, { kind: 'var', v });
      return;
    }
    const v = makeVar(d, this.structs, 'frame');
    this.placeInFrame(v);
    scope.names.set(d.name, { kind: 'var', v });
  }

  bindParam(p: VarDecl, out: VarInfo[], regOut: (RegInfo | undefined)[]): void {
    if (p.space === 'reg') {
      if (p.vector > 1) {
        // `.reg .v2 .u32 a` (ISA 1.x): the vector's components are passed one by one, as the
        // caller's vector operand is the brace list of its components (see compileCall)
        this.declareVar(this.fnScope, p);
        for (const c of ['x', 'y', 'z', 'w'].slice(0, p.vector)) {
          const sym = this.fnScope.names.get(`${p.name}.${c}`);
          if (sym?.kind !== 'reg') continue;
          regOut.push(sym.reg);
          out.push(makeVar({ ...p, name: `${p.name}.${c}`, vector: 1 }, this.structs, 'frame'));
        }
        return;
      }
      const r = this.declareReg(this.fnScope, p.name, p.type, p.span);
      regOut.push(r);
      out.push(makeVar(p, this.structs, 'frame'));
      return;
    }
    const v = makeVar(p, this.structs, this.decl.isEntry ? 'kernelParam' : 'frame');
    // an unsized `.param .b8 args[]` (the variadic ABI) takes whatever the caller passes: it goes
    // last in the frame, where a call can extend the frame by the bytes actually passed
    if (!this.decl.isEntry) {
      if (isUnsizedParam(v)) this.unsized.push(v);
      else this.placeInFrame(v);
    }
    this.fnScope.names.set(p.name, { kind: 'var', v });
    out.push(v);
    regOut.push(undefined);
  }

  bindParams(): void {
    for (const r of this.decl.rets) this.bindParam(r, this.rets, this.retRegs);
    for (const p of this.decl.params) this.bindParam(p, this.params, this.paramRegs);
    if (this.decl.isEntry) {
      // kernel params: consecutive in the param bank, each at its alignment
      let off = 0;
      for (const p of this.params) {
        off = alignUp(off, p.align);
        p.frameOffset = off;
        off += p.size;
      }
    }
  }

  collectLabels(body: readonly Statement[], counter: { n: number }): void {
    for (const s of body) {
      if (s.kind === 'label') {
        if (this.labels.has(s.name)) this.err(`label '${s.name}' defined twice`, s.span);
        this.labels.set(s.name, counter.n);
      } else if (s.kind === 'instr') counter.n++;
      else if (s.kind === 'block') this.collectLabels(s.body, counter);
      else if (s.kind === 'callprototype') this.mod.callPrototypes.add(s.name);
    }
  }

  walk(body: readonly Statement[], scope: Scope): void {
    for (const s of body) {
      switch (s.kind) {
        case 'var': this.declareVar(scope, s); break;
        case 'block': this.walk(s.body, new Scope(scope)); break;
        case 'loc': this.curLoc = { file: s.file, line: s.line, col: s.column }; break;
        case 'label': this.labelOf.set(s.name, this.pending.length); break;
        case 'callprototype': scope.names.set(s.name, { kind: 'proto' }); break;
        case 'pragma': break;
        case 'instr':
          this.pending.push({ ins: s, scope });
          this.locs.push(this.curLoc);
          break;
      }
    }
  }

  resolveOperand(o: Operand, scope: Scope, opcode: string, isAddr = false): ROperand {
    switch (o.kind) {
      case 'reg': {
        const sym = scope.lookup(o.name);
        if (sym?.kind === 'reg') return this.asVector(sym.reg, o.span) ?? { kind: 'reg', reg: sym.reg, span: o.span };
        const sp = specialOf(o.name);
        if (sp) return { kind: 'special', name: sp.name, comp: sp.comp, span: o.span };
        if (sym?.kind === 'var') return { kind: 'var', v: sym.v, addend: 0n, span: o.span };
        this.err(`undeclared register '${o.name}'`, o.span);
        return { kind: 'unresolved', name: o.name, span: o.span };
      }
      case 'sym': {
        const sym = scope.lookup(o.name);
        if (sym?.kind === 'reg') {
          const vector = this.asVector(sym.reg, o.span);
          if (o.addend !== 0n && !isAddr && vector === undefined) return { kind: 'regplus', reg: sym.reg, addend: o.addend, span: o.span };
          if (o.addend !== 0n) this.err(`register '${o.name}' cannot take an offset here`, o.span);
          return vector ?? { kind: 'reg', reg: sym.reg, span: o.span };
        }
        if (o.addend !== 0n && specialOf(o.name) !== undefined) this.err(`special register '${o.name}' cannot take an offset here`, o.span);
        if (sym?.kind === 'var') return { kind: 'var', v: sym.v, addend: o.addend, span: o.span };
        if (sym?.kind === 'proto') return { kind: 'proto', name: o.name, span: o.span };
        const member = structMember(o.name, scope, this.structs);
        if (member) return { kind: 'var', v: member.v, addend: member.offset + o.addend, span: o.span };
        const li = this.labels.get(o.name);
        if (li !== undefined) return { kind: 'label', index: li, name: o.name, span: o.span };
        if (this.mod.functionNames.has(o.name)) return { kind: 'func', name: o.name, span: o.span };
        // the predefined constant nvcc emits for warpSize (`mov.u32 %r1, WARP_SZ;`)
        if (o.name === 'WARP_SZ' && o.addend === 0n) return { kind: 'int', value: 32n, span: o.span };
        const sp = !isAddr ? specialOf(o.name) : undefined;
        if (sp && opcode !== 'call') return { kind: 'special', name: sp.name, comp: sp.comp, span: o.span };
        const swz = /^(.+)\.([xyzw]{2,4}|[rgba]{2,4}|[0-3]{2,4})$/.exec(o.name);
        const vreg = swz ? scope.lookup(`${swz[1]}.x`) : undefined;
        if (swz && vreg?.kind === 'reg') this.err(`swizzle '${o.name}' is unimplemented: "Vector operands are not generally supported. The LD, ST, and TEX instructions do support limited use of vector operands written using the tuple notation." (PTX ISA 1.1, 10.5.3); name the components (${swz[1]}.x ...) one by one`, o.span);
        else this.err(`undefined symbol '${o.name}'`, o.span);
        return { kind: 'unresolved', name: o.name, span: o.span };
      }
      case 'int': return o;
      case 'float': return o;
      case 'sink': return o;
      case 'addr': {
        // `[temp+8]` with `temp` a register named without `%`: the scanner reads `temp+8` as a
        // symbol with an addend; in an address it is register + offset
        if (o.base?.kind === 'sym' && o.base.addend !== 0n) {
          const sym = scope.lookup(o.base.name);
          if (sym?.kind === 'reg') return { kind: 'addr', base: { kind: 'reg', reg: sym.reg, span: o.base.span }, offset: o.offset + o.base.addend, span: o.span };
        }
        const base = o.base ? this.resolveOperand(o.base, scope, opcode, true) : undefined;
        return { kind: 'addr', base, offset: o.offset, span: o.span };
      }
      case 'index': {
        // ptxas scales the index by the element size (a[3] of .u32 is byte 12; a[r] is a + 4r)
        const sym = scope.lookup(o.name);
        if (sym?.kind !== 'var') {
          this.err(`'${o.name}' is not an array variable, so '${o.name}[..]' has no element to name`, o.span);
          return { kind: 'unresolved', name: o.name, span: o.span };
        }
        const v = sym.v;
        const scale = elementSize(v);
        const addend = o.index * BigInt(scale);
        let r: ROperand = { kind: 'var', v, addend, span: o.span };
        if (o.reg !== undefined) {
          const rs = scope.lookup(o.reg);
          if (rs?.kind !== 'reg') {
            this.err(`undeclared register '${o.reg}' as the index of '${o.name}'`, o.span);
            return { kind: 'unresolved', name: o.name, span: o.span };
          }
          r = { kind: 'varidx', v, reg: rs.reg, scale, addend, span: o.span };
        }
        // in a memory instruction the element is the operand's location, as [array+offset] would be
        return MEMORY_OPCODES.has(opcode) ? { kind: 'addr', base: r, offset: 0n, span: o.span } : r;
      }
      case 'addrList': return { kind: 'list', items: o.items.map((i) => this.resolveOperand(i, scope, opcode)), span: o.span };
      case 'vec': return { kind: 'vec', items: o.items.map((i) => this.resolveOperand(i, scope, opcode)), span: o.span };
      case 'list': return { kind: 'list', items: o.items.map((i) => this.resolveOperand(i, scope, opcode)), span: o.span };
      case 'not': return { kind: 'not', inner: this.resolveOperand(o.inner, scope, opcode), span: o.span };
      case 'neg': return { kind: 'neg', inner: this.resolveOperand(o.inner, scope, opcode), span: o.span };
      case 'pair': return { kind: 'pair', a: this.resolveOperand(o.a, scope, opcode), b: this.resolveOperand(o.b, scope, opcode), span: o.span };
    }
  }

  resolveInstruction(ins: Instruction, scope: Scope): RInstruction {
      let guard: RInstruction['guard'];
      if (ins.guard) {
        const g = scope.lookup(ins.guard.reg);
        if (g?.kind === 'reg') guard = { reg: g.reg, negate: ins.guard.negate };
        else this.err(`undeclared predicate '${ins.guard.reg}'`, ins.guard.span);
      }
      const typeError = typeRuleError(ins.opcode, ins.mods);
      if (typeError !== undefined) this.err(typeError, ins.opSpan);
      const split = isVideoOpcode(ins.opcode) ? splitSelectors(ins.operands, (n) => scope.lookup(n)?.kind === 'reg') : undefined;
      const operands = (split?.operands ?? ins.operands).map((o) => this.resolveOperand(o, scope, ins.opcode));
      return { src: ins, opcode: ins.opcode, mods: ins.mods, guard, operands, ...(split ? { selectors: split.selectors } : {}) };
    }

  finish(moduleRegSlots: number): ProgFunction {
    // Falling off the end of a body is an implied `exit` (entry) or `ret` (.func), as ptxas treats
    // it; a label after the last instruction targets the same place. Making it a real instruction
    // (at the closing brace) keeps every pc the machine can reach inside the function.
    if (this.decl.body !== undefined && needsImpliedEnd(this.instrs, this.labels)) {
      const at = Math.max(this.decl.span.start, this.decl.span.end - 1);
      const span = { start: at, end: this.decl.span.end };
      const src: Instruction = { kind: 'instr', opcode: this.decl.isEntry ? 'exit' : 'ret', mods: [], guard: undefined, operands: [], span, opSpan: span };
      this.instrs.push({ src, opcode: src.opcode, mods: [], guard: undefined, operands: [] });
      this.locs.push(this.curLoc);
    }

    for (const v of this.unsized) {
      this.frameSize = alignUp(this.frameSize, v.align);
      v.frameOffset = this.frameSize;
    }

    const n = this.instrs.length;
    const locFile = new Int32Array(n);
    const locLine = new Int32Array(n);
    const locCol = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      locFile[i] = this.locs[i]!.file;
      locLine[i] = this.locs[i]!.line;
      locCol[i] = this.locs[i]!.col;
    }
    return {
      name: this.decl.name, decl: this.decl, isEntry: this.decl.isEntry, instrs: this.instrs, regs: this.regs, params: this.params, rets: this.rets,
      paramRegs: this.paramRegs, retRegs: this.retRegs, frameVars: this.frameVars, frameSize: alignUp(this.frameSize, 16), labels: this.labels,
      locFile, locLine, locCol, labelOf: this.labelOf, moduleRegSlots,
    };
}
}

/** Instructions whose `array[i]` operand is a location (the element), not an address value. */
const MEMORY_OPCODES = new Set(['ld', 'ldu', 'st', 'atom', 'red', 'prefetch', 'prefetchu']);

/** The size of one element of an array variable (its type times its vector width; a struct's whole size). */
function elementSize(v: VarInfo): number {
  const t = typeSize(v.decl.type) * Math.max(1, v.decl.vector);
  if (t > 0) return t;
  const count = v.decl.dims.reduce<number>((a, d) => a * (d ?? 1), 1);
  return Math.max(1, Math.floor(v.size / Math.max(1, count)));
}

/** Can control reach the end of the instruction list (fall through the last one, or a trailing label)? */
function needsImpliedEnd(instrs: readonly RInstruction[], labels: ReadonlyMap<string, number>): boolean {
  const n = instrs.length;
  for (const i of labels.values()) if (i >= n) return true;
  const last = instrs[n - 1];
  if (last === undefined) return true;
  if (last.guard !== undefined) return true;
  return !['ret', 'exit', 'bra', 'brx', 'trap'].includes(last.opcode);
}
