/**
 * `ptxdbg FILE` (the debugger: TUI, or batch mode with --batch / -x / --ex / piped stdin),
 * `ptxdbg record` and `ptxdbg replay`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { executeCommand } from '../frontends/gdb/commands.js';
import { EXIT_FINDINGS, EXIT_USAGE, exitForSession } from './exit.js';
import { openSession, openSessionAsync, type Session, type SessionOptions } from '../engine/session.js';
import { EngineError } from '../engine/errors.js';
import { engineOf } from '../engine/api.js';
import { type TraceFile, TraceFileError, writeTraceFile } from '../trace/file.js';
import { openReplay as engineOpenReplay } from '../engine/replay.js';
import { ptxInput } from './cuda.js';
import { linkedText, UsageError } from './common.js';
import type { LaunchFlags } from './run.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';
import { tuiOf } from './tui-console.js';

export interface DebugOptions extends LaunchFlags {
  batch?: boolean | undefined;
  commandFiles?: string[] | undefined;
  ex?: string[] | undefined;
  schedule?: 'rr' | 'random' | undefined;
  seed?: number | undefined;
  maxSteps?: number | undefined;
  sourceDir?: string | undefined;
  arch?: string | undefined;
}

function sessionOptions(file: string, o: DebugOptions): SessionOptions {
  // several files: the session runs (and records) the linked text
  const ptxText = o.link?.length ? linkedText(file, o.link) ?? '' : undefined;
  if (ptxText === '') throw new UsageError(`cannot link ${[file, ...(o.link ?? [])].join(', ')}`);
  return {
    ptxPath: file, ptxText, launch: o.launch, kernel: o.kernel, grid: o.grid, block: o.block, shared: o.shared, arg: o.arg,
    schedule: o.schedule, seed: o.seed, maxSteps: o.maxSteps,
  };
}

export function readCommandFiles(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    try {
      out.push(...readBoundedText(f, MAX_SOURCE_BYTES).split('\n'));
    } catch (e) {
      if (e instanceof ReadError) throw new UsageError(`command file: ${e.message}`);
      throw e;
    }
  }
  return out;
}

/** Run commands like gdb -batch: print each command's output; exit 1 if any failed. */
export function runBatch(s: Session, commands: readonly string[], write: (t: string) => void): number {
  let failed = false;
  for (const c of commands) {
    if (!c.trim() || c.trim().startsWith('#')) continue;
    const r = executeCommand(engineOf(s), c);
    if (r.output) write(r.output.endsWith('\n') ? r.output : r.output + '\n');
    if (r.error) failed = true;
    if (r.quit) break;
  }
  return failed ? 1 : 0;
}

export async function debugCommand(file: string, o: DebugOptions): Promise<number> {
  const input = ptxInput(file, o.arch, o);
  const ptx = input.ptxPath;
  o = { ...o, ...input.flags };
  const commands = [...readCommandFiles(o.commandFiles ?? []), ...(o.ex ?? [])];
  const batch = o.batch || !process.stdout.isTTY || !process.stdin.isTTY;
  let session: Session | undefined;
  let error: string | undefined;
  let errorCode = EXIT_FINDINGS;
  try {
    session = await recordWithProgress(sessionOptions(ptx, o));
    if (o.sourceDir) session.setSourceDir(o.sourceDir);
    const atEnd = session.openAtEnd();
    if (atEnd && batch) process.stdout.write(`${atEnd.message}\n`);
    if (session.loadWarnings) process.stderr.write(session.loadWarnings + '\n');
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    error = e.message;
    errorCode = exitForSession(e.code);
  }
  if (batch) {
    if (!session) {
      process.stderr.write(`ptxdbg: ${error}\n`);
      return errorCode;
    }
    if (!o.batch && !commands.length && !process.stdin.isTTY) commands.push(...readFileSync(0, 'utf8').split('\n'));
    return runBatch(session, commands, (t) => process.stdout.write(t));
  }
  if (session) for (const c of commands) executeCommand(engineOf(session), c);
  const { runTui } = await import('../../tui/index.js');
  return runTui({ ...(session ? tuiOf(session) : {}), error, title: ptx, sourceDir: o.sourceDir });
}

/**
 * Record a launch for the debugger: after a second, a progress line on stderr (when it is a
 * terminal); Ctrl-C stops the recording and the debugger opens on what was recorded (rr's habit).
 */
async function recordWithProgress(opts: SessionOptions): Promise<Session> {
  const ctl = new AbortController();
  const onInt = (): void => ctl.abort();
  process.on('SIGINT', onInt);
  const tty = process.stderr.isTTY === true;
  let shown = false;
  try {
    return await openSessionAsync(opts, {
      signal: ctl.signal,
      onProgress: (p) => {
        if (!tty || p.wallMs < 1000) return;
        shown = true;
        const rate = p.threadInstructions / (p.wallMs / 1000);
        process.stderr.write(`\rrecording: ${(p.steps / 1e6).toFixed(1)} M warp-steps, ${(p.threadInstructions / 1e6).toFixed(0)} M thread-instructions, ${(rate / 1e6).toFixed(0)} M/s, ${(p.bytes / 2 ** 20).toFixed(0)} MiB   (Ctrl-C: stop and debug what is recorded) `);
      },
    });
  } finally {
    process.off('SIGINT', onInt);
    if (shown) process.stderr.write('\n');
  }
}

export function recordCommand(file: string, out: string, o: DebugOptions): number {
  const t0 = performance.now();
  const input = ptxInput(file, o.arch, o);
  file = input.ptxPath;
  o = { ...o, ...input.flags };
  let s: Session;
  try {
    s = openSession(sessionOptions(file, o));
  } catch (e) {
    if (e instanceof EngineError) { process.stderr.write(`ptxdbg: ${e.message}\n`); return exitForSession(e.code); }
    throw e;
  }
  let bytes: number;
  try {
    bytes = writeTraceFile(out, s.trace, resolve(file), s.ptxText, s.launch, { schedule: s.options.schedule, seed: s.options.seed, maxSteps: s.options.maxSteps });
  } catch (e) {
    if (e instanceof TraceFileError) { process.stderr.write(`ptxdbg: ${e.message}\n`); return 1; }
    throw e;
  }
  const ms = performance.now() - t0;
  process.stderr.write(`recorded ${s.total} warp-steps${s.trace.fault ? ' (ended by a fault)' : ''} in ${ms.toFixed(0)} ms; wrote ${out} (${bytes} bytes)\n`);
  return 0;
}

/**
 * A session re-executed from a trace file and checked against its step log (engine/load.ts), or a
 * message and the exit code: 2 when the file cannot be read, 1 when it is not a valid recording.
 */
export function openReplay(tracePath: string): { session: Session; file: TraceFile } | { error: string; code: number } {
  const r = engineOpenReplay(tracePath);
  return 'error' in r ? { error: r.error, code: r.code === 'read-failed' ? EXIT_USAGE : EXIT_FINDINGS } : r;
}

export async function replayCommand(tracePath: string, o: DebugOptions): Promise<number> {
  const r = openReplay(tracePath);
  if ('error' in r) {
    process.stderr.write(`ptxdbg: ${r.error}\n`);
    return r.code;
  }
  const { session: s, file: f } = r;
  const h = f.header;
  if (existsSync(h.ptxPath)) {
    // the path comes from the file: read it only as far as a PTX of the recorded size could go
    let now: string | undefined;
    try { now = readBoundedText(h.ptxPath, Buffer.byteLength(f.ptxText) + 1); } catch (e) { if (!(e instanceof ReadError)) throw e; }
    if (now !== f.ptxText) process.stderr.write(`ptxdbg: note: ${h.ptxPath} has changed since it was recorded; showing the recorded version.\n`);
  }
  if (o.sourceDir) s.setSourceDir(o.sourceDir);
  const commands = [...readCommandFiles(o.commandFiles ?? []), ...(o.ex ?? [])];
  if (o.batch || !process.stdout.isTTY || !process.stdin.isTTY) {
    if (!o.batch && !commands.length && !process.stdin.isTTY) commands.push(...readFileSync(0, 'utf8').split('\n'));
    return runBatch(s, commands, (t) => process.stdout.write(t));
  }
  for (const c of commands) executeCommand(engineOf(s), c);
  const { runTui } = await import('../../tui/index.js');
  return runTui({ ...tuiOf(s), title: `${h.ptxPath} (replay of ${tracePath})`, sourceDir: o.sourceDir });
}
