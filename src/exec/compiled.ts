/** The pre-decoded form the interpreter runs: one `CInstr` per PTX instruction. */
import type { ProgFunction, RInstruction } from '../ptx/resolve.js';
import type { Warp } from './state.js';

export type Exec = (w: Warp, m: number) => void;

export const enum Ctl {
  None = 0,
  Bra = 1,
  Call = 2,
  Ret = 3,
  Exit = 4,
  Bar = 5,
  Trap = 6,
  Brkpt = 7,
  Brx = 8,
  Unsupported = 9,
  /** bar.warp.sync and the .sync collectives: wait for the member lanes (src/exec/simt). */
  WarpSync = 10,
}

/** Where a call argument / return value lives on the caller's side. */
export type ArgRef =
  | { readonly kind: 'frame'; readonly offset: number; readonly size: number }
  | { readonly kind: 'reg'; readonly base: number; readonly size: number };

export interface CallInfo {
  /** Direct callee name, or undefined for an indirect call through `calleeReg`. */
  readonly callee: string | undefined;
  readonly calleeReg: number;
  readonly args: readonly ArgRef[];
  readonly rets: readonly ArgRef[];
}

export interface BarInfo {
  readonly op: 'sync' | 'arrive' | 'red';
  /** Barrier id: constant, or register base when `idReg` >= 0. */
  readonly id: number;
  readonly idReg: number;
  /** Thread count register base or -1 (all threads of the CTA). */
  readonly countReg: number;
  readonly redOp: 'popc' | 'and' | 'or' | undefined;
  readonly dst: number;
  readonly pred: number;
  readonly predNeg: boolean;
  /** `barrier.sync` vs `bar.sync` (.aligned semantics): both count threads here. */
}

export interface CInstr {
  readonly index: number;
  readonly src: RInstruction;
  exec: Exec | undefined;
  ctl: Ctl;
  guard: number;
  guardNeg: boolean;
  target: number;
  /** Reconvergence point (IPDOM) for a conditional branch; -1 = function exit. */
  rpc: number;
  /** Reads %clock/%globaltimer: the warp's issue count must be current when it executes. */
  readsClock: boolean;
  call: CallInfo | undefined;
  bar: BarInfo | undefined;
  /** Member mask of a warp-synchronous instruction: register base (or -1) and immediate. */
  sync: { readonly reg: number; readonly imm: number } | undefined;
  /** brx.idx: index register base and target table. */
  brxIndex: number;
  brxTargets: readonly number[];
  /** Unsupported instruction message. */
  note: string;
}

export interface SpecialSlot {
  readonly base: number;
  readonly name: string;
  readonly comp: number;
}

export interface CFunction {
  readonly prog: ProgFunction;
  readonly name: string;
  readonly code: CInstr[];
  /** Register file image with constant slots filled in; each frame starts as a copy. */
  readonly template: ArrayBuffer;
  readonly specials: readonly SpecialSlot[];
  readonly frameSize: number;
  /** Initialized registers (ISA 1.1 `.reg .u32 r = 7;`): slot base and value, set on every entry. */
  readonly regInit: readonly { readonly base: number; readonly lo: number; readonly hi: number }[];
  /** Global index of instruction 0 (set by the machine; the trace logs gbase + pc). */
  gbase: number;
}
