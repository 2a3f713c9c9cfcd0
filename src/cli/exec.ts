/**
 * Whole CUDA programs on the CPU: `ptxdbg exec`, `ptxdbg capture` and `ptxdbg sanitize` run an
 * unmodified program (built with `nvcc -cudart shared`) on the replacement runtime (src/cudart),
 * serve its device memory and launches from this process (src/host), and, per launch, record
 * figures, check races, write a capture bundle, or open the debugger while the program waits.
 * The program's exit code is ptxdbg's.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../exec/machine.js';
import { Device, MAX_PROGRAM_DEVICE_BYTES } from '../host/device.js';
import { type LaunchSnapshot, writeBundle } from '../host/bundle.js';
import { SanitizeSession, type SanitizeOptions } from '../host/sanitizer.js';
import { InitCheck } from '../host/initcheck.js';
import { type BreakSpec, fsReason, ProgramLaunches, type RecordOptions, runProgram } from '../host/program.js';
import type { ProgramRecording } from '../host/recording.js';
import { EXIT_USAGE } from './exit.js';
import { UsageError } from './common.js';
import { packageRoot } from './package.js';
import { threadCount, threadsLine } from './threads.js';

export { faultStatus } from '../host/program.js';

/**
 * A launch of a whole program stops after this many warp-steps (ten times `run`'s default: real
 * programs' kernels are long, but a kernel that spins on host memory would wait forever here).
 */
export const EXEC_MAX_STEPS = 2_000_000_000;

export interface ExecOptions {
  stats?: boolean;
  races?: boolean;
  /** KERNEL or KERNEL#N (the Nth launch of it, from 1). */
  break?: readonly string[];
  breakOnFault?: boolean;
  /** Debugger commands for the launch the debugger opens on (batch mode when not a terminal). */
  ex?: readonly string[];
  batch?: boolean;
  capture?: { dir: string; kernel: string | undefined };
  /** `ptxdbg sanitize`: the tool and compute-sanitizer's options (src/host/sanitizer.ts). */
  sanitize?: SanitizeOptions;
  schedule?: 'rr' | 'random';
  seed?: number;
  maxSteps?: number;
  /** Threads for a launch's independent CTAs (src/exec/parallel/); default: one per core for a plain run (defaultWorkers). */
  workers?: number | 'auto' | undefined;
  /** `--device-memory SIZE`: the device's memory (bytes, or a number with K, M or G). */
  deviceMemory?: string | undefined;
  /** Record the whole program (src/host/recording.ts); its recording is handed to `recorded` when the program has ended. */
  record?: { options: RecordOptions; recorded: (r: ProgramRecording) => void | Promise<void> } | undefined;
}

/**
 * Threads when --workers is not given: `auto` for a plain run (idle cores join a launch once
 * enough of it is left to gain, src/exec/parallel/auto.ts; a launch that may not run on threads
 * stays on one: pool.ts says why); one under
 * the checking tools, the race checker and recording, which watch a launch on one machine.
 */
function defaultWorkers(o: ExecOptions): 'auto' | 1 {
  return o.sanitize !== undefined || o.record !== undefined || o.races === true || o.capture !== undefined ? 1 : 'auto';
}

/** `--device-memory`: bytes, or a number with K, M or G (KiB, MiB, GiB), up to what the emulator can address. */
export function parseDeviceMemory(spec: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(spec.trim());
  const bytes = m ? Math.floor(Number(m[1]) * 1024 ** ' kmg'.indexOf(m[2]!.toLowerCase() || ' ')) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 << 20) throw new UsageError(`--device-memory ${spec}: expected a size of at least 1M, such as 2G, 1536M or 1073741824`);
  if (bytes > MAX_PROGRAM_DEVICE_BYTES) throw new UsageError(`--device-memory ${spec}: more than the ${MAX_PROGRAM_DEVICE_BYTES / 2 ** 30} GiB ptxdbg can emulate (an A100 80GB's)`);
  return bytes;
}

/** The runtime library built by `npm run build` (dist/cudart). */
export function runtimeDir(): string {
  return join(packageRoot() ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'dist', 'cudart');
}

function parseBreak(spec: string): BreakSpec {
  const m = /^([^#]+)(?:#(\d+))?$/.exec(spec);
  if (!m || (m[2] !== undefined && Number(m[2]) < 1)) throw new UsageError(`--break ${spec}: expected KERNEL or KERNEL#N (N from 1)`);
  return { kernel: m[1]!, nth: m[2] === undefined ? undefined : Number(m[2]) };
}

export async function execCommand(argv: readonly string[], o: ExecOptions): Promise<number> {
  if (argv.length === 0) throw new UsageError('no program given: ptxdbg exec [options] -- ./app [args]');
  const lib = runtimeDir();
  if (!existsSync(join(lib, 'libcudart.so.13'))) {
    process.stderr.write(`ptxdbg: the ptxdbg CUDA runtime is not built (${join(lib, 'libcudart.so.13')}); it needs a C compiler (cc) and the CUDA headers at build time: run npm run build with CUDA_HOME set\n`);
    return EXIT_USAGE;
  }
  const breaks = (o.break ?? []).map(parseBreak);
  if (o.capture) {
    try {
      mkdirSync(o.capture.dir, { recursive: true });
    } catch (e) {
      throw new UsageError(`cannot create the capture directory ${o.capture.dir}: ${fsReason(e)}`);
    }
  }
  // deadStores: a launch's registers are seen only through a recording (--break, --record, the
  // debugger at a fault replays the launch), and a recording turns the lean blocks off
  const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule: o.schedule ?? 'rr', seed: o.seed ?? 1, maxSteps: o.maxSteps ?? EXEC_MAX_STEPS, deadStores: true };
  const device = new Device(o.deviceMemory === undefined ? undefined : parseDeviceMemory(o.deviceMemory));
  if (o.sanitize?.tool === 'initcheck') device.initCheck = new InitCheck();
  const say = (line: string): void => { process.stderr.write(line + '\n'); };
  let san: SanitizeSession | undefined;
  try {
    san = o.sanitize ? new SanitizeSession(o.sanitize) : undefined;
  } catch (e) {
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    const file = (e as NodeJS.ErrnoException).path ?? 'the report file';
    throw new UsageError(`cannot write ${file}: ${fsReason(e)}`);
  }
  san?.banner();
  const app = argv[0]!;
  const launches = new ProgramLaunches(device, {
    opts, threads: threadCount(o.workers ?? defaultWorkers(o)), stats: o.stats === true, races: o.races === true,
    breaks, breakOnFault: o.breakOnFault === true, capture: o.capture, sanitize: san, record: o.record?.options,
    say, threadsLine, openDebugger: (snap, atFault) => debugSnapshot(snap, o, atFault),
  }, app, argv.slice(1));
  // Ctrl-C while recording stops the recording and keeps what was recorded (the program ends as usual)
  const interrupt = (): void => launches.stopRecording('interrupted');
  if (o.record) process.on('SIGINT', interrupt);
  let ended;
  try {
    ended = await runProgram(argv, lib, device, launches, { sanitize: san !== undefined, captureOutput: o.record !== undefined });
  } finally {
    if (o.record) process.off('SIGINT', interrupt);
  }
  if ('notStarted' in ended) {
    process.stderr.write(`ptxdbg: cannot run ${app}: ${ended.notStarted}\n`);
    return EXIT_USAGE;
  }
  const code = ended.code;
  if (!device.connected) {
    say(`ptxdbg: ${app} never registered CUDA code with the ptxdbg runtime: build it with nvcc -cudart shared (the default, -cudart static, links NVIDIA's runtime into the program)`);
  }
  if (o.record && launches.recording) await o.record.recorded(launches.recording);
  for (const b of launches.unhitBreaks()) say(`ptxdbg: --break ${b.kernel}${b.nth === undefined ? '' : `#${b.nth}`}: the program made no such launch`);
  if (san) {
    // at exit the context goes: what is still allocated leaked
    if (device.beforeReset) device.beforeReset();
    return san.finish(code);
  }
  return code;
}

/**
 * Open the debugger on a launch (as a bundle in a temporary directory) and wait until it quits;
 * `atFault`: stopped at the fault (the recording runs to it first, as `continue` would).
 */
async function debugSnapshot(snap: LaunchSnapshot, o: ExecOptions, atFault = false): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-launch-'));
  try {
    writeBundle(dir, snap);
    const { debugCommand } = await import('./debug.js');
    await debugCommand(join(dir, 'kernel.ptx'), {
      launch: join(dir, 'launch.json'), ex: [...(atFault ? ['continue'] : []), ...(o.ex ?? [])], batch: o.batch,
      schedule: o.schedule, seed: o.seed, maxSteps: o.maxSteps,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
