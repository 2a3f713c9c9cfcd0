/**
 * What the block compiler needs to know of a scalar load or store (memops.ts scalarLd/scalarSt)
 * to do it inline in a fused lane loop: its space, size and register operands. Kept beside the
 * closure the instruction runs as (like codegen.ts boundLoopOf for ALU loops), so the closure
 * stays the reference: a generated block falls back to it whenever its whole-warp check refuses.
 */
import type { Space } from '../memory.js';

export interface MemSpec {
  readonly kind: 'ld' | 'st';
  readonly space: Space;
  /** Bytes: 4 or 8. */
  readonly size: number;
  /** A 4-byte load into a 64-bit register sign-extends. */
  readonly signed: boolean;
  /** Address register slot base (a 32-bit register when `reg32`), plus the constant (lo, hi). */
  readonly reg: number;
  readonly reg32: boolean;
  readonly lo: number;
  readonly hi: number;
  /** The loaded register (ld) or the stored one (st), slot base. */
  readonly data: number;
}

const specs = new WeakMap<object, MemSpec>();

/** Remember how `run` was made; returns it. */
export function markMemOp<T extends object>(run: T, spec: MemSpec): T {
  specs.set(run, spec);
  return run;
}

/** How a scalar load/store closure was made, or undefined for any other. */
export function memSpecOf(run: unknown): MemSpec | undefined {
  return typeof run === 'function' ? specs.get(run) : undefined;
}
