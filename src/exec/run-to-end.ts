/**
 * Running one launch to its end, the one way every caller does it (`ptxdbg run`, a whole
 * program's launch in src/host/device.ts, the race checker's run): build the Machine, run it on
 * worker threads when asked and allowed, and rerun it on one thread when the threads stopped on a
 * fault or the step limit (their memory is as it was; the report comes from the sequential run),
 * with spin hints when the step limit ends it, then the grids it launched from device code.
 */
import { Machine, type RunOptions, type RunResult } from './machine.js';
import type { Launch } from './launch.js';
import type { Program } from '../ptx/resolve.js';
import { runObservingSpins } from './spin.js';
import { runDescendants, withDescendants, type TreeResult } from './children.js';
import { noteLaunch, runOnThreads, type ParallelRun, type Threads } from './parallel/pool.js';
import type { PtxSource } from './parallel/protocol.js';

/** The Machine (or what observes it) cannot take this launch: parameter mismatch, too large. */
export class LaunchSetupError extends Error {}

/** How a launch runs; every field may be left out (one thread, nothing attached, no children). */
export interface RunToEnd {
  /** Threads for independent CTAs (src/exec/parallel/); with `source`, the module's text for the workers. */
  readonly threads?: Threads;
  readonly source?: PtxSource;
  /** True once no one waits for this launch any more (a whole program has ended). */
  readonly gone?: () => boolean;
  /**
   * Attach observers to a Machine before it runs (called again for the Machine of a rerun); what
   * it returns is called when the run ends, thrown or not. Its throw is a LaunchSetupError.
   */
  readonly attach?: (m: Machine) => (() => void) | void;
  /** Called before the sequential run (a whole program's launch runs in slices while it is waited for). */
  readonly before?: (m: Machine) => void;
  /** Run the grids the launch started from device code after it, each by this (default: to its end). */
  readonly children?: boolean | ((child: Machine) => void);
}

export interface RanToEnd {
  readonly machine: Machine;
  /** The launch's result, its descendants' output and steps added. */
  readonly result: RunResult;
  /** Present when more than one thread was asked for: how it ran. */
  readonly parallel?: ParallelRun;
  /** Present when children ran (none or some). */
  readonly tree?: TreeResult;
}

function setUp(program: Program, launch: Launch, opts: RunOptions, attach: RunToEnd['attach']): { m: Machine; detach: (() => void) | void } {
  try {
    const m = new Machine(program, launch, opts);
    return { m, detach: attach?.(m) };
  } catch (e) {
    throw new LaunchSetupError((e as Error).message, { cause: e });
  }
}

/** Run `launch` of `program` to its end (see the header); throws LaunchSetupError when it cannot start. */
export function runToEnd(program: Program, launch: Launch, opts: RunOptions, how: RunToEnd = {}): RanToEnd {
  let { m: machine, detach } = setUp(program, launch, opts, how.attach);
  const t0 = performance.now();
  let parallel: ParallelRun | undefined;
  let tree: TreeResult | undefined;
  try {
    const threads = how.threads ?? 1;
    if ((threads === 'auto' || threads > 1) && how.source) {
      parallel = runOnThreads(machine, how.source, threads, how.gone);
      if (parallel.kind === 'rerun') {
        detach?.();
        detach = undefined;
        ({ m: machine, detach } = setUp(program, launch, opts, how.attach));
      }
    }
    if (parallel?.kind !== 'parallel') {
      how.before?.(machine);
      runObservingSpins(machine);
    }
    noteLaunch(machine);
    if (how.children && !machine.fault) tree = runDescendants(machine, how.children === true ? runObservingSpins : how.children);
  } finally {
    detach?.();
  }
  const result = withDescendants(machine.result(performance.now() - t0), tree);
  return { machine, result, ...(parallel ? { parallel } : {}), ...(tree ? { tree } : {}) };
}
