/**
 * `ptxdbg ./app args` and `ptxdbg debug [options] -- ./app args` (issue #25): run a whole CUDA
 * program once on the replacement runtime, recording every launch's start state and the host
 * calls between them (src/host/program.ts), then open the debugger on the whole program: the TUI
 * in a terminal, batch mode for scripts (--batch, -x FILE, --ex CMD). The program's own output
 * goes to the terminal as it runs; Ctrl-C stops recording (the program runs to its end, later
 * launches unrecorded) and the debugger opens on what was recorded.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { basename } from 'node:path';
import { type Engine, EngineError, openProgramEngine } from '../engine/index.js';
import { HostLines } from '../host/hostlines.js';
import { recordingProgressLine, type RecordOptions } from '../host/program.js';
import { programSource } from '../host/program-source.js';
import type { HostLineLookup, ProgramRecording } from '../host/recording.js';
import { consoleOf } from '../frontends/gdb/console.js';
import { executeCommand } from '../frontends/gdb/commands.js';
import { type DebugOptions, readCommandFiles } from './debug.js';
import { execCommand, type ExecOptions } from './exec.js';
import { EXIT_USAGE } from './exit.js';
import { UsageError } from './common.js';

/** What a whole-program session takes beyond the debugger's options. */
export interface ProgramDebugOptions extends DebugOptions {
  /** `--record K1,K2`: only these kernels' launches are recorded (the others run, their effect one event). */
  record?: readonly string[] | undefined;
  /** Bytes the recording may hold (start images and host bytes). */
  budget?: number | undefined;
  workers?: ExecOptions['workers'];
  deviceMemory?: string | undefined;
}

/** The recording's default budget: past it later launches run unrecorded. */
export const DEFAULT_RECORD_BUDGET = 4 * 2 ** 30;

/** Whether `path` is an ELF file (a program, where a .ptx would go). */
export function isElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b[0] === 0x7f && b.toString('latin1', 1, 4) === 'ELF';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Host call sites by the program's own .debug_line (src/host/hostlines.ts): `offbyone.cu:42`. */
function hostLineLookup(): HostLineLookup {
  const lines = new HostLines();
  return (path, address) => {
    const l = lines.at(path, address);
    return l.file !== undefined && l.line !== undefined && l.line > 0 ? { file: basename(l.file), line: l.line } : undefined;
  };
}

/** Run a batch script on the program's engine: each command's output; 1 if any failed. */
export function runProgramBatch(e: Engine, commands: readonly string[], write: (t: string) => void): number {
  let failed = false;
  for (const c of commands) {
    if (!c.trim() || c.trim().startsWith('#')) continue;
    const r = executeCommand(e, c);
    if (r.output) write(r.output.endsWith('\n') ? r.output : r.output + '\n');
    if (r.error) failed = true;
    if (r.quit) break;
  }
  return failed ? 1 : 0;
}

export async function programDebugCommand(argv: readonly string[], o: ProgramDebugOptions): Promise<number> {
  if (argv.length === 0) throw new UsageError('no program given: ptxdbg debug [options] -- ./app [args]');
  const commands = [...readCommandFiles(o.commandFiles ?? []), ...(o.ex ?? [])];
  const batch = o.batch || !process.stdout.isTTY || !process.stdin.isTTY;
  const tty = process.stderr.isTTY === true;
  let shown = false;
  const record: RecordOptions = {
    kernels: o.record, budget: o.budget ?? DEFAULT_RECORD_BUDGET, lines: hostLineLookup(),
    onProgress: (p) => {
      if (!tty) return;
      shown = true;
      process.stderr.write(`\r${recordingProgressLine(p)}   (Ctrl-C: stop recording and debug what is recorded) `);
    },
  };
  let rec: ProgramRecording | undefined;
  const code = await execCommand(argv, {
    schedule: o.schedule, seed: o.seed, maxSteps: o.maxSteps, workers: o.workers, deviceMemory: o.deviceMemory,
    record: { options: record, recorded: (r) => { rec = r; } },
  });
  if (shown) process.stderr.write('\n');
  if (!rec) return code === 0 ? EXIT_USAGE : code; // the program could not be run (said on stderr)
  const recorded = rec.launches.filter((l) => l.start).length;
  process.stderr.write(`ptxdbg: ${argv[0]} exited with code ${rec.exitCode ?? code}: ${rec.launches.length} launch${rec.launches.length === 1 ? '' : 'es'}, ${recorded} recorded${rec.stopped ? ` (recording stopped: ${rec.stopped === 'budget' ? 'the budget was reached' : 'interrupted'})` : ''}\n`);
  let engine: Engine | undefined;
  let error: string | undefined;
  try {
    engine = openProgramEngine(programSource(rec), { schedule: o.schedule, seed: o.seed, maxSteps: o.maxSteps });
    if (o.sourceDir) engine.setSourceDir(o.sourceDir);
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    error = e.message;
  }
  if (batch) {
    if (!engine) {
      process.stderr.write(`ptxdbg: ${error}\n`);
      return 1;
    }
    return runProgramBatch(engine, commands, (t) => process.stdout.write(t));
  }
  if (engine) for (const c of commands) executeCommand(engine, c);
  const { runTui } = await import('../../tui/index.js');
  return runTui({ ...(engine ? { engine, console: consoleOf(engine) } : {}), error, title: `${argv.join(' ')}`, sourceDir: o.sourceDir });
}

/** `--record K1,K2`: the kernels, by plain or mangled name. */
export function parseRecordList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  const list = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
  if (!list.length) throw new UsageError('--record takes kernel names: --record scale,finish');
  return list;
}

/** `--budget SIZE`: bytes, or a number with K, M or G (powers of 1024). */
export function parseBudget(spec: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(spec.trim());
  const bytes = m ? Math.floor(Number(m[1]) * 1024 ** ' kmg'.indexOf(m[2]!.toLowerCase() || ' ')) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new UsageError(`--budget ${spec}: expected a size such as 512M or 4G`);
  return bytes;
}
