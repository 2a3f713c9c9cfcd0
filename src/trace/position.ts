/**
 * Where on the program's timeline, and which way: the one type for each, shared by the trace, the
 * engine and its front ends (a bare number named step/position/p/warpSteps was each before).
 *
 * A Position is a launch and the number of warp-steps run in it: the machine state after
 * `step` warp-steps of launch `launch` (launch 0 in a single-kernel session). A ThreadIndex is
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
