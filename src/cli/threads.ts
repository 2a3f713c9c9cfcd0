/**
 * `--workers`: the thread count a flag asks for, and the --stats line of how a launch ran. Apart
 * from run.ts so that `exec` loads them without `run`'s engine imports (launch resolution, the
 * trace's errors): a whole program starts faster for what it does not load.
 */
import type { ParallelRun, Threads } from '../exec/parallel/pool.js';

/** The threads of a --workers value ('auto': one per core, for launches long enough to gain). */
export function threadCount(w: number | 'auto' | undefined): Threads {
  return w === 'auto' ? 'auto' : Math.max(1, Math.floor(w ?? 1));
}

/** The --stats line of a run asked to use several threads. */
export function threadsLine(par: ParallelRun): string {
  switch (par.kind) {
    case 'parallel': return par.alone !== undefined ? `threads: 1 (${par.alone})` : `threads: ${par.threads} (CTAs per thread: ${par.ctasPerThread.join(', ')})`;
    case 'sequential': return `threads: 1 (${par.why})`;
    default: return `threads: 1 (rerun on one thread after ${par.why})`;
  }
}
