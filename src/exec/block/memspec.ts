/**
 * What the block compiler needs to know of a scalar load or store (memops.ts scalarLd/scalarSt)
 * to do it inline in a fused lane loop: its space, size and register operands. Kept beside the
 * closure the instruction runs as (like codegen.ts boundLoopOf for ALU loops), so the closure
 * stays the reference: a generated block falls back to it whenever its whole-warp check refuses.
 */
import type { Space } from '../memory.js';
import { selecting } from '../codegen.js';

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
  if (!selecting.only) specs.set(run, spec);
  return run;
}

/** How a scalar load/store closure was made, or undefined for any other. */
export function memSpecOf(run: unknown): MemSpec | undefined {
  return typeof run === 'function' ? specs.get(run) : undefined;
}

/**
 * A load of one scalar (4 or 8 bytes, aligned) at a constant address of the kernel's parameters
 * or the constant bank (memops.ts compileLd's uniform form): every lane reads the same value, and
 * nothing a kernel runs writes either bank, so a block reads it once, at its start, and its lane
 * loop only copies it. The bounds are checked there too; a block whose check fails runs its
 * instructions one at a time instead, where the closure faults as before.
 */
export interface UniformSpec {
  readonly space: Space;
  /** Byte offset in the bank. */
  readonly lo: number;
  readonly size: number;
  readonly signed: boolean;
  /** The loaded register's slot base. */
  readonly data: number;
}

const uniforms = new WeakMap<object, UniformSpec>();

export function markUniformLoad<T extends object>(run: T, spec: UniformSpec): T {
  if (!selecting.only) uniforms.set(run, spec);
  return run;
}

export function uniformSpecOf(run: unknown): UniformSpec | undefined {
  return typeof run === 'function' ? uniforms.get(run) : undefined;
}
