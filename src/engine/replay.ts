/**
 * Opening a recorded trace file: the session re-executed from it and checked against its step
 * log (kept apart from load.ts so that loading a launch does not load the whole engine).
 */
import { compareWithFile, readTraceFile, type TraceFile, TraceFileError } from '../trace/file.js';
import { EngineError, type ErrorCode } from './errors.js';
import { openSession, type Session } from './session.js';

/**
 * A session re-executed from a trace file and checked against its step log, or a message saying
 * why the file cannot be used (truncated, corrupted, recorded by another build).
 */
export function openReplay(tracePath: string): { session: Session; file: TraceFile } | { error: string; code: ErrorCode } {
  let f: TraceFile;
  try {
    f = readTraceFile(tracePath);
  } catch (e) {
    if (e instanceof TraceFileError) return { error: e.message, code: e.kind === 'unreadable' ? 'read-failed' : 'bad-trace' };
    throw e;
  }
  const h = f.header;
  let s: Session;
  try {
    s = openSession({ ptxPath: h.ptxPath, ptxText: f.ptxText, launchObject: f.launch, schedule: h.schedule, seed: h.seed, maxSteps: h.maxSteps, interval: h.interval });
  } catch (e) {
    if (e instanceof EngineError) return { error: `${tracePath}: the recorded kernel no longer loads: ${e.message}`, code: 'bad-trace' };
    throw e;
  }
  const diff = compareWithFile(s.trace, f);
  if (diff) return { error: `${tracePath} does not match its re-execution (${diff}); it was recorded by a different ptxdbg build. Record it again.`, code: 'bad-trace' };
  return { session: s, file: f };
}
