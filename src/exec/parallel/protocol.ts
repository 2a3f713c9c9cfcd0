/** Messages between the main thread and the worker threads that share launches' CTAs. */
import type { MessagePort } from 'node:worker_threads';
import type { LaunchImage } from './image.js';

/** The PTX a worker parses: the same text and name the main thread's Program came from. */
export interface PtxSource {
  readonly text: string;
  readonly label: string;
}

/** What a worker gets when it starts: the port its launches come on. */
export interface WorkerInput {
  readonly port: MessagePort;
}

/** One launch to share. A worker parses each module once and keeps it for later launches. */
export interface LaunchJob {
  /** The module, by a number the main thread gave it; `source` comes with its first job. */
  readonly module: number;
  readonly source: PtxSource | undefined;
  /**
   * How the main thread's program was resolved: undefined when every body was at load, else the
   * root lists it has reached, in order (DeferredResolution.history).
   */
  readonly resolved: readonly (readonly string[])[] | undefined;
  readonly image: LaunchImage;
  /** Int32 [0] next CTA id to claim, [1] workers finished with this launch, [2] stop, [3] workers joined (see Claim). */
  readonly claims: SharedArrayBuffer;
}

/** Indices into a launch's shared claims array. */
export const enum Claim {
  NextCta = 0,
  Finished = 1,
  /** Nonzero: stop between slices, no one waits for the launch (its program has ended). */
  Stop = 2,
  /**
   * Workers that joined the launch (took part: they claim CTAs and report). The main thread adds
   * CLOSED when its own run is over: a worker that arrives later (still starting, or parsing the
   * module) sees it and leaves the launch alone, so no one waits for a worker's start.
   */
  Joined = 3,
}

/** Added to Claim.Joined when the main thread has closed the launch (more than any thread count). */
export const CLOSED = 1 << 20;

/** Bytes of a launch's claims array (Int32 per Claim). */
export const CLAIM_BYTES = 16;

/** Warp-steps a thread runs between looks at Claim.Stop (as the device's sliced run). */
export const STOP_SLICE = 1 << 16;

/**
 * Run `m` to its end in slices of STOP_SLICE warp-steps, calling `stop` between them: true ends the
 * run early and is answered with false. advance() returning short of its limit means the run is over.
 */
export function runUnless(m: { advance(limit: number): void; warpSteps: number; finished: boolean }, stop: () => boolean): boolean {
  for (;;) {
    const limit = m.warpSteps + STOP_SLICE;
    m.advance(limit);
    if (m.finished || m.warpSteps < limit) return true;
    if (stop()) return false;
  }
}

/** What a worker reports when its CTAs of a launch are done (or why it could not run them). */
export type WorkerOutput =
  | {
    readonly ok: true; readonly warpSteps: number; readonly threadInstructions: number; readonly ctas: number;
    /** The worker's dirty flags of the global bank (pages its CTAs wrote). */
    readonly dirty: Uint8Array;
    /** ... and of the banks past the first, by bank number. */
    readonly far: FarDirty;
  }
  /** `dirty`, `far`: the pages it wrote, when it got as far as running CTAs. */
  | { readonly ok: false; readonly why: string; readonly dirty?: Uint8Array; readonly far?: FarDirty };

/** Dirty flags of global memory's banks past the first: [bank number, flags]. */
export type FarDirty = readonly (readonly [number, Uint8Array])[];
