/**
 * `ptxdbg FILE` (the debugger: TUI, or batch mode with --batch / -x / --ex / piped stdin),
 * `ptxdbg record` and `ptxdbg replay`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { executeCommand } from '../frontends/gdb/commands.js';
import { openSession, type Session, SessionError, type SessionOptions } from '../engine/session.js';
import { TraceFileError, writeTraceFile } from '../trace/file.js';
import { compileCuda as engineCompileCuda, openReplay } from '../engine/load.js';
import { EngineError } from '../engine/errors.js';
import { UsageError } from './common.js';
import type { LaunchFlags } from './run.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';

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

/** `kernel.cu`: compile with nvcc -G -ptx (see engine/load.ts); a failure is a usage error here. */
export function compileCuda(cuPath: string, arch: string): string {
  try {
    return engineCompileCuda(cuPath, arch);
  } catch (e) {
    if (e instanceof EngineError) throw new UsageError(e.message);
    throw e;
  }
}

function sessionOptions(file: string, o: DebugOptions): SessionOptions {
  return {
    ptxPath: file, launch: o.launch, kernel: o.kernel, grid: o.grid, block: o.block, shared: o.shared, arg: o.arg,
    schedule: o.schedule, seed: o.seed, maxSteps: o.maxSteps,
  };
}

function readCommandFiles(files: readonly string[]): string[] {
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
    const r = executeCommand(s, c);
    if (r.output) write(r.output.endsWith('\n') ? r.output : r.output + '\n');
    if (r.error) failed = true;
    if (r.quit) break;
  }
  return failed ? 1 : 0;
}

export async function debugCommand(file: string, o: DebugOptions): Promise<number> {
  let ptx = file;
  if (file.endsWith('.cu')) {
    ptx = compileCuda(file, o.arch ?? 'sm_80');
    // the launch file sits next to the .cu, not next to the cached PTX
    if (!o.launch && !o.grid && !o.block && !o.arg?.length) {
      const stem = basename(file).replace(/\.cu$/, '');
      const found = [join(dirname(file), `${stem}.launch.json`), join(dirname(file), 'launch.json')].find((p) => existsSync(p));
      if (found) o = { ...o, launch: found };
    }
  }
  const commands = [...readCommandFiles(o.commandFiles ?? []), ...(o.ex ?? [])];
  const batch = o.batch || !process.stdout.isTTY || !process.stdin.isTTY;
  let session: Session | undefined;
  let error: string | undefined;
  try {
    session = openSession(sessionOptions(ptx, o));
    if (o.sourceDir) session.setSourceDir(o.sourceDir);
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    error = e.message;
  }
  if (batch) {
    if (!session) {
      process.stderr.write(`ptxdbg: ${error}\n`);
      return 1;
    }
    if (!o.batch && !commands.length && !process.stdin.isTTY) commands.push(...readFileSync(0, 'utf8').split('\n'));
    return runBatch(session, commands, (t) => process.stdout.write(t));
  }
  if (session) for (const c of commands) executeCommand(session, c);
  const { runTui } = await import('../frontends/tui/index.js');
  return runTui({ session, error, title: ptx, sourceDir: o.sourceDir });
}

export function recordCommand(file: string, out: string, o: DebugOptions): number {
  const t0 = performance.now();
  let s: Session;
  try {
    s = openSession(sessionOptions(file, o));
  } catch (e) {
    if (e instanceof SessionError) { process.stderr.write(`ptxdbg: ${e.message}\n`); return 1; }
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

export { openReplay };

export async function replayCommand(tracePath: string, o: DebugOptions): Promise<number> {
  const r = openReplay(tracePath);
  if ('error' in r) {
    process.stderr.write(`ptxdbg: ${r.error}\n`);
    return 1;
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
  for (const c of commands) executeCommand(s, c);
  const { runTui } = await import('../frontends/tui/index.js');
  return runTui({ session: s, title: `${h.ptxPath} (replay of ${tracePath})`, sourceDir: o.sourceDir });
}
