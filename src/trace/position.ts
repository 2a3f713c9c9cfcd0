/**
 * Where on the program's timeline, and which way: the one type for each, shared by the trace, the
 * engine and its front ends (a bare number named step/position/p/warpSteps was each before).
 *
 * A Position is a launch and the number of warp-steps run in it: the machine state after
 * `step` warp-steps of launch `launch` (launch 0 in a single-kernel session).
 *
 * In a whole program (issue #25) launches count from 1 in program order (as `exec --stats` and
 * `--break K#N` do), and the host's events between launches are positions too: the m events
 * (cudaMemcpy, cudaMemset, output, ...) made after launch k-1 and before launch k sit at steps
 * -m..-1 of launch k, in program order; those after the last launch n at steps of launch n+1.
 * So `comparePositions`, lexicographic on (launch, step), is one total order consistent with
 * the program's: launch k-1's steps < the host events before launch k < launch k's step 0. A
 * launch's steps run 0..its warp-steps (the state after the last); the engine stops only at
 * step >= 0 (there is no device state at a host event, engine/program/timeline.ts).
 *
 * A ThreadIndex is
 * something else: the n-th instruction one thread issued (an index into its timeline), which
 * the brands keep from being passed where a position is meant.
 */
declare const POSITION: unique symbol;
declare const THREAD_INDEX: unique symbol;

export type Position = { readonly launch: number; readonly step: number } & { readonly [POSITION]: true };

/** The position after `step` warp-steps of launch `launch` (unchecked: Engine.goto range-checks). */
export function positionOf(launch: number, step: number): Position {
  return { launch, step } as Position;
}

/** Negative, 0 or positive as a is before, at or after b on the program timeline. */
export function comparePositions(a: Position, b: Position): number {
  return a.launch - b.launch || a.step - b.step;
}

export function samePosition(a: Position, b: Position): boolean {
  return a.launch === b.launch && a.step === b.step;
}

/** An index into one thread's timeline (its n-th issued instruction): not a program position. */
export type ThreadIndex = number & { readonly [THREAD_INDEX]: true };

export function threadIndex(n: number): ThreadIndex {
  return n as ThreadIndex;
}

/** Which way a move or a search goes on the timeline. */
export type Direction = 'forward' | 'backward';
