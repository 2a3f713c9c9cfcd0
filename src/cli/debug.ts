/**
 * `ptxdbg FILE` (the debugger: TUI, or batch mode with --batch / -x / --ex / piped stdin),
 * `ptxdbg record` and `ptxdbg replay`.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { executeCommand } from '../debug/commands.js';
import { openSession, type Session, SessionError, type SessionOptions } from '../debug/session.js';
import { compareWithFile, readTraceFile, type TraceFile, TraceFileError, writeTraceFile } from '../trace/file.js';
import { linkedText, UsageError } from './common.js';
import type { LaunchFlags } from './run.js';
import { MAX_SOURCE_BYTES, readBounded, readBoundedText, ReadError } from '../io/bounded.js';

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

/** `kernel.cu`: compile with nvcc -G -ptx into a cache keyed by the source's hash. */
export function compileCuda(cuPath: string, arch: string): string {
  let src: Buffer;
  try {
    src = readBounded(cuPath, MAX_SOURCE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new UsageError(e.message);
    throw e;
  }
  const probe = spawnSync('nvcc', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new UsageError(`nvcc is not on the PATH, so ${cuPath} cannot be compiled here. Compile it elsewhere with\n  nvcc -G -ptx -arch=${arch} ${basename(cuPath)} -o ${basename(cuPath).replace(/\.cu$/, '.ptx')}\nand open the .ptx file: ptxdbg ${basename(cuPath).replace(/\.cu$/, '.ptx')}`);
  }
  const key = createHash('sha256').update(src).update(arch).digest('hex').slice(0, 16);
  const cacheRoot = process.env['PTXDBG_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir() || tmpdir(), '.cache'), 'ptxdbg');
  const dir = join(cacheRoot, key);
  const out = join(dir, basename(cuPath).replace(/\.cu$/, '') + '.ptx');
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  const r = spawnSync('nvcc', ['-G', '-ptx', `-arch=${arch}`, resolve(cuPath), '-o', tmp], { encoding: 'utf8', cwd: dirname(resolve(cuPath)) });
  if (r.status !== 0) throw new UsageError(`nvcc failed on ${cuPath}:\n${(r.stderr || r.stdout || String(r.error)).trim()}`);
  renameSync(tmp, out);
  // keep a copy of the source next to the PTX so the Source pane finds it
  writeFileSync(join(dir, basename(cuPath)), src);
  return out;
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
  const { runTui } = await import('../../tui/index.js');
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

/**
 * A session re-executed from a trace file and checked against its step log, or a message saying
 * why the file cannot be used (truncated, corrupted, recorded by another build).
 */
export function openReplay(tracePath: string): { session: Session; file: TraceFile } | { error: string } {
  let f: TraceFile;
  try {
    f = readTraceFile(tracePath);
  } catch (e) {
    if (e instanceof TraceFileError) return { error: e.message };
    throw e;
  }
  const h = f.header;
  let s: Session;
  try {
    s = openSession({ ptxPath: h.ptxPath, ptxText: f.ptxText, launchObject: f.launch, schedule: h.schedule, seed: h.seed, maxSteps: h.maxSteps, interval: h.interval });
  } catch (e) {
    if (e instanceof SessionError) return { error: `${tracePath}: the recorded kernel no longer loads: ${e.message}` };
    throw e;
  }
  const diff = compareWithFile(s.trace, f);
  if (diff) return { error: `${tracePath} does not match its re-execution (${diff}); it was recorded by a different ptxdbg build. Record it again.` };
  return { session: s, file: f };
}

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
  const { runTui } = await import('../../tui/index.js');
  return runTui({ session: s, title: `${h.ptxPath} (replay of ${tracePath})`, sourceDir: o.sourceDir });
}
