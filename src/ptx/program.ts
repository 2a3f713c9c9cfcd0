/** A resolved program's types (what `resolveModule` makes) and the layout of its variables. */
import type { FunctionDecl, Initializer, Instruction, PtxModule, Span, StateSpace, StructDecl, VarDecl } from './ast.js';
import type { Diagnostic } from './diagnostics.js';
import { typeSize } from './types.js';

export interface RegInfo {
  readonly name: string;
  readonly type: string;
  /** Slot index in the frame's register file. */
  readonly slot: number;
  /** ISA 1.1 register initializer (`.reg .pred p = 1;`): the value at function entry, every lane. */
  readonly init?: Initializer;
}

/** A variable with storage: module-level (global/const/shared/kernel param) or in a frame. */
export interface VarInfo {
  readonly name: string;
  readonly space: StateSpace;
  readonly decl: VarDecl;
  readonly size: number;
  readonly align: number;
  /** For frame variables (.local, per-call .param): byte offset in the thread's frame. */
  frameOffset: number;
  /** Which storage the engine uses: 'frame' variables live in each thread's stack frame. */
  readonly storage: 'module' | 'frame' | 'kernelParam' | 'cta';
}

export type ROperand =
  | { readonly kind: 'reg'; readonly reg: RegInfo; readonly span: Span }
  | { readonly kind: 'special'; readonly name: string; readonly comp: number; readonly span: Span }
  | { readonly kind: 'int'; readonly value: bigint; readonly span: Span }
  | { readonly kind: 'float'; readonly value: number; readonly f32Bits: number | undefined; readonly span: Span }
  | { readonly kind: 'var'; readonly v: VarInfo; readonly addend: bigint; readonly span: Span }
  | { readonly kind: 'label'; readonly index: number; readonly name: string; readonly span: Span }
  | { readonly kind: 'func'; readonly name: string; readonly span: Span }
  | { readonly kind: 'addr'; readonly base: ROperand | undefined; readonly offset: bigint; readonly span: Span }
  | { readonly kind: 'vec'; readonly items: readonly ROperand[]; readonly span: Span }
  | { readonly kind: 'list'; readonly items: readonly ROperand[]; readonly span: Span }
  | { readonly kind: 'not'; readonly inner: ROperand; readonly span: Span }
  | { readonly kind: 'neg'; readonly inner: ROperand; readonly span: Span }
  /** Element `reg + addend/scale` of an array variable (`array[r]`, `array[r+1]`): v + reg*scale + addend. */
  | { readonly kind: 'varidx'; readonly v: VarInfo; readonly reg: RegInfo; readonly scale: number; readonly addend: bigint; readonly span: Span }
  /** A register plus a constant as a source operand (`st.u64 [x], %rd1 + 1;`, which ptxas accepts). */
  | { readonly kind: 'regplus'; readonly reg: RegInfo; readonly addend: bigint; readonly span: Span }
  | { readonly kind: 'pair'; readonly a: ROperand; readonly b: ROperand; readonly span: Span }
  | { readonly kind: 'sink'; readonly span: Span }
  | { readonly kind: 'proto'; readonly name: string; readonly span: Span }
  | { readonly kind: 'unresolved'; readonly name: string; readonly span: Span };

export interface RInstruction {
  readonly src: Instruction;
  readonly opcode: string;
  readonly mods: readonly string[];
  readonly guard: { readonly reg: RegInfo; readonly negate: boolean } | undefined;
  readonly operands: readonly ROperand[];
  /** Video instructions: the sub-word selector written on each operand (`.b0`, `.h10`), see selectors.ts. */
  readonly selectors?: readonly (string | undefined)[];
}

export interface SourceLoc {
  readonly file: number;
  readonly line: number;
  readonly column: number;
}

export interface ProgFunction {
  readonly name: string;
  readonly decl: FunctionDecl;
  readonly isEntry: boolean;
  readonly instrs: RInstruction[];
  readonly regs: RegInfo[];
  readonly params: VarInfo[];
  readonly rets: VarInfo[];
  /** `.reg` parameters (ABI with register params), in order; undefined entries for .param ones. */
  readonly paramRegs: (RegInfo | undefined)[];
  readonly retRegs: (RegInfo | undefined)[];
  readonly frameVars: VarInfo[];
  /** Bytes of per-thread frame storage (params, rets, locals, call-site params). */
  frameSize: number;
  readonly labels: Map<string, number>;
  /** Per instruction: its `.loc` (file, line, column), or file -1 when none. */
  readonly locFile: Int32Array;
  readonly locLine: Int32Array;
  readonly locCol: Int32Array;
  /** Labels preceding each instruction, for DWARF pc mapping. */
  readonly labelOf: Map<string, number>;
  /**
   * Register slots [0, n) hold the module-scope `.reg` variables (ISA 1.x), the same in every
   * function: a call copies them into the callee's frame and its return copies them back, so every
   * function of a thread sees one register.
   */
  readonly moduleRegSlots: number;
}

export interface Program {
  readonly module: PtxModule;
  readonly functions: Map<string, ProgFunction>;
  /** Declarations without bodies (extern functions like vprintf). */
  readonly prototypes: Map<string, FunctionDecl>;
  readonly globals: VarInfo[];
  /** Shared variables (module-level or declared in a function body): per-CTA storage. */
  readonly shared: VarInfo[];
  readonly files: Map<number, string>;
  readonly structs: Map<string, StructDecl>;
  readonly callPrototypes: Set<string>;
  /** Every function with a body, in module order, resolved yet or not (function ids and entry lists come from it). */
  readonly bodies: readonly FunctionDecl[];
  /**
   * Functions whose address a module-level initializer takes (tables of function pointers, vtables):
   * any kernel may call them through memory, so every kernel reaches them.
   */
  readonly tabled: readonly string[];
  /** Resolves the rest on demand (`resolveModule(m, { lazy: true })`); undefined when every body was resolved at load. */
  readonly deferred: DeferredResolution | undefined;
}

/** The part of a lazily resolved program still to do. */
export interface DeferredResolution {
  /** Resolves these functions and all they reach; the problems found (memoised per root list). */
  reach(roots: readonly string[]): readonly Diagnostic[];
  /**
   * The root lists reached so far, in order. Reaching the same lists in the same order resolves
   * the same functions with the same module lists (globals, shared): a worker thread's copy of
   * the program replays them to agree with the main thread's (src/exec/parallel/).
   */
  readonly history: readonly (readonly string[])[];
  /**
   * Resolves every body, in module order, one at a time: each function resolved without problems goes to `each`
   * and is then let go, its statements too (`check`: a whole module's code held at once made
   * most of its time garbage collection). The problems found, in the order an eager load lists
   * them. The program serves nothing else afterwards. `pick` (by index in `bodies`) limits the
   * sweep to a share of the bodies (check's threads each take one).
   */
  sweep(each: (fn: ProgFunction) => void, pick?: (index: number) => boolean): readonly Diagnostic[];
  /**
   * Resolves a function that is not the module's against the module's names (`check`'s stand-in
   * for statements of its bodies, body-keys.ts): its problems, and the function where there are
   * none. Variables it declares join the program's lists; the program serves only the sweep.
   */
  outside(decl: FunctionDecl): { readonly fn: ProgFunction | undefined; readonly diagnostics: readonly Diagnostic[] };
}

export interface ResolveOptions {
  /**
   * Resolve no function body at load: `resolveReachable` resolves a kernel's when it is about to
   * run, so a module of many kernels costs only what the launched one can reach. Problems in code
   * no launched kernel reaches are then not reported (`ptxdbg check` resolves everything).
   */
  readonly lazy?: boolean;
}

export function varSize(decl: VarDecl, structs: Map<string, StructDecl>): number {
  let elem = typeSize(decl.type);
  if (elem === 0) {
    const st = structs.get(decl.type);
    if (st) elem = structSize(st, structs);
  }
  elem *= decl.vector === 3 ? 4 : decl.vector;
  let count = 1;
  for (let i = 0; i < decl.dims.length; i++) {
    const d = decl.dims[i];
    count *= d ?? initCount(decl, i);
  }
  return elem * count;
}

function initCount(decl: VarDecl, dim: number): number {
  let init = decl.init;
  for (let i = 0; i < dim && init && init.kind === 'list'; i++) init = init.items[0];
  return init && init.kind === 'list' ? init.items.length : 0;
}

function structSize(st: StructDecl, structs: Map<string, StructDecl>): number {
  let size = 0;
  for (const f of st.fields) {
    const fs = varSize(f, structs);
    size = st.isUnion ? Math.max(size, fs) : size + fs;
  }
  return size;
}

/** `.param .b8 a[]`: a parameter whose size is the caller's (variadic arguments). */
export function isUnsizedParam(v: VarInfo): boolean {
  return v.size === 0 && v.decl.dims.includes(null);
}

export function alignUp(x: number, a: number): number {
  return a <= 1 ? x : Math.ceil(x / a) * a;
}
