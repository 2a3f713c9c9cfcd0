/**
 * The PTX module model produced by the parser.
 *
 * Nodes keep byte offsets into the source (`Span`); line/column are computed on demand from the
 * module's line table (see diagnostics.ts), as TypeScript's own parser does. Integer literals are
 * `bigint` so 64-bit immediates never pass through a double.
 */

export interface Span {
  readonly start: number;
  readonly end: number;
}

export type StateSpace =
  | 'reg' | 'sreg' | 'const' | 'global' | 'local' | 'param' | 'shared'
  | 'tex' | 'surf' | 'sampler';

export type Linkage = 'extern' | 'visible' | 'weak' | 'common';

/** A type name without its leading dot: 'u32', 'f32', 'pred', 'b8', or a `.struct` name. */
export type TypeName = string;

export interface VarDecl {
  readonly kind: 'var';
  readonly space: StateSpace;
  readonly name: string;
  readonly type: TypeName;
  /** 1 for scalars, else 2/3/4/8 from `.vN`. */
  readonly vector: number;
  /** Array dimensions; `null` for an unsized `[]` dimension. */
  readonly dims: readonly (number | null)[];
  readonly align: number | undefined;
  readonly linkage: Linkage | undefined;
  /** `.reg .b32 %r<7>` declares %r0..%r6: rangeCount = 7. */
  readonly rangeCount: number | undefined;
  readonly init: Initializer | undefined;
  /** `.ptr.space.align` attribute on kernel params. */
  readonly ptrSpace: string | undefined;
  /** `.samplerref s = { filter_mode = nearest, ... }`: an opaque variable's settings. */
  readonly fields?: readonly OpaqueField[];
  readonly span: Span;
}

/** `name = value` in the initializer of a .texref / .samplerref / .surfref. */
export interface OpaqueField {
  readonly name: string;
  /** A word (`nearest`, `clamp_to_border`) or an integer's text. */
  readonly value: string;
  readonly span: Span;
}

export type Initializer =
  | { readonly kind: 'list'; readonly items: readonly Initializer[]; readonly span: Span }
  | { readonly kind: 'int'; readonly value: bigint; readonly span: Span }
  | { readonly kind: 'float'; readonly value: number; readonly f32Bits?: number; readonly span: Span }
  | { readonly kind: 'sym'; readonly name: string; readonly addend: bigint; readonly generic: boolean; readonly span: Span };

export interface FileDirective {
  readonly kind: 'file';
  readonly index: number;
  readonly path: string;
  readonly span: Span;
}

export interface LocDirective {
  readonly kind: 'loc';
  readonly file: number;
  readonly line: number;
  readonly column: number;
  readonly inlinedAt: { readonly file: number; readonly line: number; readonly column: number } | undefined;
  readonly functionName: string | undefined;
  readonly span: Span;
}

/** One `.b8/.b16/.b32/.b64` datum inside a `.section`. */
import type { SectionDataList } from './section-data.js';
import type { Diagnostic } from './diagnostics.js';

export type SectionDatum =
  | { readonly kind: 'num'; readonly width: 1 | 2 | 4 | 8; readonly value: bigint; readonly span: Span }
  | { readonly kind: 'sym'; readonly width: 1 | 2 | 4 | 8; readonly name: string; readonly addend: bigint; readonly span: Span };

export interface Section {
  readonly kind: 'section';
  readonly name: string;
  readonly data: SectionDataList;
  /** Labels inside the section, with the index of the datum they precede. */
  readonly labels: readonly { readonly name: string; readonly datum: number; readonly span: Span }[];
  readonly span: Span;
}

export type Operand =
  | { readonly kind: 'reg'; readonly name: string; readonly span: Span }
  | { readonly kind: 'int'; readonly value: bigint; readonly span: Span }
  /** Float immediates keep their written width: `0f` literals are binary32 bit patterns. */
  | { readonly kind: 'float'; readonly value: number; readonly f32Bits: number | undefined; readonly span: Span }
  /** A label, variable or function name, optionally indexed `sym[imm]` or `sym+imm`. */
  | { readonly kind: 'sym'; readonly name: string; readonly addend: bigint; readonly span: Span }
  | { readonly kind: 'addr'; readonly base: Operand | undefined; readonly offset: bigint; readonly span: Span }
  /** `array[3]`, `array[r]`, `array[r+1]`: element `reg + index` of an array variable (scaled by its element size). */
  | { readonly kind: 'index'; readonly name: string; readonly reg: string | undefined; readonly index: bigint; readonly span: Span }
  /** `[tex, {coords}]` style bracket lists. */
  | { readonly kind: 'addrList'; readonly items: readonly Operand[]; readonly span: Span }
  | { readonly kind: 'vec'; readonly items: readonly Operand[]; readonly span: Span }
  /** Parenthesised call argument / return lists. */
  | { readonly kind: 'list'; readonly items: readonly Operand[]; readonly span: Span }
  | { readonly kind: 'not'; readonly inner: Operand; readonly span: Span }
  | { readonly kind: 'neg'; readonly inner: Operand; readonly span: Span }
  /** setp's `%p|%q` destination pair. */
  | { readonly kind: 'pair'; readonly a: Operand; readonly b: Operand; readonly span: Span }
  | { readonly kind: 'sink'; readonly span: Span };

export interface Guard {
  readonly reg: string;
  readonly negate: boolean;
  readonly span: Span;
}

export interface Instruction {
  readonly kind: 'instr';
  readonly opcode: string;
  /** Modifiers in written order, without dots: ['global', 'nc', 'v4', 'f32']. */
  readonly mods: readonly string[];
  readonly guard: Guard | undefined;
  readonly operands: readonly Operand[];
  readonly span: Span;
  readonly opSpan: Span;
}

export interface Label {
  readonly kind: 'label';
  readonly name: string;
  readonly span: Span;
}

export interface Block {
  readonly kind: 'block';
  readonly body: readonly Statement[];
  readonly span: Span;
}

export interface CallPrototype {
  readonly kind: 'callprototype';
  readonly name: string;
  readonly rets: readonly VarDecl[];
  readonly params: readonly VarDecl[];
  readonly span: Span;
}

export interface Pragma {
  readonly kind: 'pragma';
  readonly text: string;
  readonly span: Span;
}

export type Statement = Instruction | Label | LocDirective | VarDecl | Block | CallPrototype | Pragma;

export interface FunctionDecl {
  readonly kind: 'function';
  readonly isEntry: boolean;
  readonly name: string;
  readonly linkage: Linkage | undefined;
  readonly rets: readonly VarDecl[];
  readonly params: readonly VarDecl[];
  /** `undefined` for a prototype (declaration without body). */
  readonly body: readonly Statement[] | undefined;
  readonly noreturn: boolean;
  /** Performance directives: maxntid, reqntid, minnctapersm, maxnreg, ... */
  readonly perf: ReadonlyMap<string, readonly number[]>;
  /** ISA 1.1 `.entry name [N][M]` CTA dimensions. */
  readonly ctaDims: readonly number[];
  readonly span: Span;
  readonly nameSpan: Span;
  /** Present when the body was left as text at parse (ParseOptions.deferBodies): reading `body` parses it. */
  readonly deferred?: DeferredBody;
}

/** A function body not parsed yet. */
export interface DeferredBody {
  /** Offset of the body's `{`. */
  readonly open: number;
  /** The body's own syntax errors, once `body` has been read. */
  readonly diagnostics: readonly Diagnostic[];
  /** Whether `body` has been read. */
  readonly read: boolean;
  /**
   * Drops the parsed body and its diagnostics (reading `body` again parses it again): `check`
   * reads each body once, and a whole module's statements held at once made most of its time GC.
   */
  forget(): void;
}

/** Whether the function has a body, without reading a deferred one. */
export function hasBody(f: FunctionDecl): boolean {
  return f.deferred !== undefined || f.body !== undefined;
}

export interface StructDecl {
  readonly kind: 'struct';
  readonly isUnion: boolean;
  readonly name: string;
  readonly fields: readonly VarDecl[];
  readonly span: Span;
}

export type TopLevel = FunctionDecl | VarDecl | FileDirective | Section | StructDecl | Pragma;

export interface PtxModule {
  readonly fileName: string;
  readonly source: string;
  readonly version: string | undefined;
  readonly target: readonly string[];
  readonly addressSize: 32 | 64;
  readonly items: readonly TopLevel[];
}
