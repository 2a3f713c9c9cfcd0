/**
 * Forking a recording: the what-if session re-records the launch from its start with the same
 * program, launch and scheduling options (so every step before the first write is the same as
 * the original's: the run is deterministic), the machine applying the writes at their steps
 * (edit.ts). The result is an ordinary Session, so stepping, breakpoints, watchpoints, reverse
 * execution, history and origin all work on it unchanged; before the first write it is the
 * original's shared prefix.
 */
import type { Launch } from '../../exec/launch.js';
import { Machine } from '../../exec/machine.js';
import { GlobalArena } from '../../exec/memory.js';
import { restoreSaved, savePages } from '../../exec/bank-pages.js';
import { Trace } from '../../trace/trace.js';
import { EngineError } from '../errors.js';
import { Session } from '../session.js';
import { type Edit, installEdits } from './edit.js';

/**
 * Re-record `original`'s launch with `edits` applied; the new session shares its stop points.
 * `launch`: the same launch with memory of its own, at its start. A launch over resident memory
 * (a program's, src/host) runs in that memory itself, which the original's machine holds at its
 * current step: a fork must not start from there, nor write into it.
 */
export function forkSession(original: Session, edits: readonly Edit[], launch: Launch = privateLaunch(original)): Session {
  let m: Machine;
  try {
    m = new Machine(original.program, launch, original.options);
  } catch (e) {
    throw new EngineError(`cannot re-run the launch for the what-if timeline: ${(e as Error).message}`, 'cannot-launch');
  }
  installEdits(m, edits);
  const trace = Trace.record(m, { interval: original.trace.interval });
  const s = new Session(original.ptxPath, original.ptxText, original.program, launch, original.options, trace, original.launchNo);
  s.loadWarnings = original.loadWarnings;
  s.sources = original.sources;
  s.shareStopPoints(original);
  return s;
}

/**
 * `original`'s launch with global memory of its own, as it was at the launch's start. A launch
 * over resident memory (`exec --break`, a bundle with a "device" section) runs in that memory
 * itself: a fork run there would start from wherever the original's machine stands and leave its
 * writes in the recording's memory (the original would then read the what-if's values). The copy
 * is the arena's allocator state and the pages that may be non-zero, at step 0.
 */
function privateLaunch(original: Session): Launch {
  const r = original.launch.resident;
  if (!r) return original.launch;
  const here = original.position();
  original.trace.goto(0);
  const arena = new GlobalArena(r.arena.bank.size);
  arena.loadState(r.arena.saveState());
  restoreSaved(arena.bank, savePages(r.arena.bank));
  original.trace.goto(here);
  return { ...original.launch, resident: { ...r, arena, globals: new Map(r.globals) } };
}
