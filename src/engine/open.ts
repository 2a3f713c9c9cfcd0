/** Opening an engine: on a launch recorded now (with progress, stoppable), or on a trace file. */
import { Engine } from './api.js';
import type { ErrorCode } from './errors.js';
import { openReplay } from './replay.js';
import { openSession, openSessionAsync, type SessionOptions } from './session.js';
import type { RecordProgress } from '../trace/trace.js';
import type { TraceFile } from '../trace/file.js';
import { type ProgramOptions, ProgramTimeline } from './program/timeline.js';
import type { ProgramSource } from './program/source.js';

/** Load PTX and launch, record the run, and open an engine at step 0. Throws EngineError. */
export function openEngine(o: SessionOptions): Engine {
  return Engine.of(openSession(o));
}

/** Like openEngine, recording with progress reports; a stopped (aborted) recording opens on what was recorded. */
export async function openEngineAsync(o: SessionOptions, rec: { onProgress?: (p: RecordProgress) => void; signal?: AbortSignal } = {}): Promise<Engine> {
  return Engine.of(await openSessionAsync(o, rec));
}

export type ReplayOpened = { readonly engine: Engine; readonly file: TraceFile } | { readonly error: string; readonly code: ErrorCode };

/** An engine re-executed from a trace file and checked against its step log, or why the file cannot be used. */
export function openReplayEngine(tracePath: string): ReplayOpened {
  const r = openReplay(tracePath);
  return 'error' in r ? r : { engine: Engine.of(r.session), file: r.file };
}

/**
 * An engine over a whole program's recording (issue #25): its launches are recorded into
 * sessions as they are visited; it opens in the first recorded launch, at step 0.
 */
export function openProgramEngine(source: ProgramSource, o: ProgramOptions = {}): Engine {
  return Engine.ofProgram(new ProgramTimeline(source, o));
}
