/**
 * Whole CUDA programs on the CPU: `ptxdbg exec`, `ptxdbg capture` and `ptxdbg sanitize` run an
 * unmodified program (built with `nvcc -cudart shared`) on the replacement runtime (src/cudart),
 * serve its device memory and launches from this process (src/host), and, per launch, record
 * figures, check races, write a capture bundle, or open the debugger while the program waits.
 * The program's exit code is ptxdbg's.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { DEFAULT_RUN_OPTIONS, type FaultReport, type Machine, type RunOptions } from '../exec/machine.js';
import { Device, type LaunchRequest } from '../host/device.js';
import { serveProgram, type LaunchOutcome } from '../host/server.js';
import { type LaunchSnapshot, snapshotLaunch, writeBundle, writeBundleOutputs } from '../host/bundle.js';
import { CUDA, CudaError } from '../host/errors.js';
import { initcheckError, memcheckError, PREFIX, racecheckError, synccheckError } from '../host/sanitize.js';
import { InitCheck } from '../host/initcheck.js';
import { checkRun } from '../races/run.js';
import { formatReport } from '../races/format.js';
import type { RaceReport } from '../races/types.js';
import { formatFault } from '../engine/fault.js';
import { plainName } from '../engine/breakpoints.js';
import { EXIT_USAGE } from './exit.js';
import { UsageError } from './common.js';
import { packageRoot } from './package.js';
import { threadCount, threadsLine } from './run.js';
import type { ParallelRun } from '../exec/parallel/pool.js';

/**
 * A launch of a whole program stops after this many warp-steps (ten times `run`'s default: real
 * programs' kernels are long, but a kernel that spins on host memory would wait forever here).
 */
export const EXEC_MAX_STEPS = 2_000_000_000;

export type SanitizeTool = 'memcheck' | 'racecheck' | 'synccheck' | 'initcheck';

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
  sanitize?: SanitizeTool;
  schedule?: 'rr' | 'random';
  seed?: number;
  maxSteps?: number;
  /** Threads for a launch's independent CTAs (src/exec/parallel/); default 1. */
  workers?: number | 'auto' | undefined;
}

/** The runtime library built by `npm run build` (dist/cudart). */
export function runtimeDir(): string {
  return join(packageRoot() ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'dist', 'cudart');
}

/** A launch's fault as the program sees it: the sticky error a GPU would return. */
export function faultStatus(f: FaultReport): number {
  switch (f.kind) {
    case 'assert': return CUDA.assert;
    case 'oob': case 'invalid': case 'readonly': return CUDA.illegalAddress;
    case 'misaligned': return CUDA.misalignedAddress;
    case 'step-limit': return CUDA.launchTimeout;
    default: return CUDA.launchFailure;
  }
}

function parseBreak(spec: string): { kernel: string; nth: number | undefined } {
  const m = /^([^#]+)(?:#(\d+))?$/.exec(spec);
  if (!m || (m[2] !== undefined && Number(m[2]) < 1)) throw new UsageError(`--break ${spec}: expected KERNEL or KERNEL#N (N from 1)`);
  return { kernel: m[1]!, nth: m[2] === undefined ? undefined : Number(m[2]) };
}

const kernelMatches = (want: string, mangled: string): boolean => want === mangled || want === plainName(mangled);

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
  // a bundle that cannot be written is reported and capturing stops; the program runs on
  let capturing = o.capture !== undefined;
  const keep = (dir: string, write: () => void): void => {
    try {
      write();
    } catch (e) {
      if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
      say(`ptxdbg: cannot write the bundle ${dir}: ${fsReason(e)}; capturing stops`);
      capturing = false;
    }
  };
  const hit = new Set<number>();
  const app = argv[0]!;
  const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule: o.schedule ?? 'rr', seed: o.seed ?? 1, maxSteps: o.maxSteps ?? EXEC_MAX_STEPS };
  const device = new Device();
  if (o.sanitize === 'initcheck') device.initCheck = new InitCheck();
  const say = (line: string): void => { process.stderr.write(line + '\n'); };
  const tool = o.sanitize;
  if (tool) say(`${PREFIX}COMPUTE-SANITIZER (ptxdbg, ${tool})`);
  let errors = 0;
  let launches = 0;
  const perKernel = new Map<string, number>();

  const onLaunch = async (r: LaunchRequest): Promise<LaunchOutcome> => {
    const index = ++launches;
    const nth = (perKernel.get(r.kernel) ?? 0) + 1;
    perKernel.set(r.kernel, nth);
    const label = `${plainName(r.kernel)}<<<(${r.grid.join(',')}),(${r.block.join(',')})>>>${r.launchedBy ? ` (launched from the device by ${r.launchedBy})` : ''}`;
    const breakAt = breaks.findIndex((b) => kernelMatches(b.kernel, r.kernel) && (b.nth === undefined || b.nth === nth));
    const breakHere = breakAt >= 0;
    if (breakHere) hit.add(breakAt);
    const captureHere = capturing && (o.capture!.kernel === undefined || kernelMatches(o.capture!.kernel, r.kernel));
    let snap: LaunchSnapshot | undefined;
    try {
      if (breakHere || captureHere || o.breakOnFault) snap = snapshotLaunch(device, r);
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      say(`ptxdbg: launch ${index} ${label}: ${e.message}`);
      return { status: e.code, stdout: '' };
    }
    const bundleDir = captureHere ? join(o.capture!.dir, `${String(index).padStart(4, '0')}-${plainName(r.kernel)}`) : undefined;
    if (bundleDir) keep(bundleDir, () => writeBundle(bundleDir, snap!));
    if (breakHere) {
      say(`ptxdbg: launch ${index} ${label} (launch ${nth} of ${plainName(r.kernel)}): opening the debugger; the program waits until you quit it`);
      await debugSnapshot(snap!, o);
    }
    const t0 = performance.now();
    let ran: Ran;
    try {
      ran = runLaunch(device, r, opts, o);
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      say(`ptxdbg: launch ${index} ${label}: ${e.message}`);
      return { status: e.code, stdout: '' };
    }
    const { fault, stdout, steps, instrs } = ran;
    for (const finding of ran.findings) { errors++; for (const l of finding) say(PREFIX + l); say(PREFIX.trimEnd()); }
    if (ran.raceReport) {
      errors += ran.raceReport.races.length + ran.raceReport.barrierErrors.length;
      say(`ptxdbg: launch ${index} ${label}:`);
      process.stderr.write(formatReport(ran.raceReport));
    }
    const ms = performance.now() - t0;
    if (o.stats) say(`ptxdbg: launch ${index} ${label}: ${steps} warp-steps, ${instrs} thread-instructions, ${ms.toFixed(1)} ms${ran.parallel ? `; ${threadsLine(ran.parallel)}` : ''}`);
    // grids it launched from device code: launches of their own, run before the parent counts as
    // finished (children.ts), so a bundle's expected outputs include them as `run` reproduces them
    let all = stdout;
    let childStatus: number = CUDA.success;
    if (!fault) {
      for (const c of device.childRequests(ran.machine, r.module)) {
        const out = await onLaunch(c);
        all += out.stdout;
        if (out.status !== CUDA.success) { childStatus = out.status; break; }
      }
    }
    if (bundleDir && capturing) keep(bundleDir, () => writeBundleOutputs(bundleDir, device, snap!, all));
    if (!fault) return { status: childStatus, stdout: all };
    const status = faultStatus(fault);
    // memcheck reports the faults it knows in compute-sanitizer's layout; others as ptxdbg does
    const lines = tool === 'memcheck' ? memcheckError(fault, device) : undefined;
    if (lines) { errors++; for (const l of lines) say(PREFIX + l); say(PREFIX.trimEnd()); }
    else say(`${formatFault(fault)}\n  (launch ${index} ${label}; the program gets error ${status})`);
    if (o.breakOnFault && !breakHere) {
      say('ptxdbg: opening the debugger on the faulting launch; the program waits until you quit it');
      await debugSnapshot(snap!, o, true);
    }
    return { status, stdout };
  };

  const child = spawn(app, argv.slice(1), {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [lib, process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':'),
      PTXDBG_FD: '3',
    },
  });
  const spawned = new Promise<number | Error>((done) => {
    child.on('error', (e) => done(e));
    child.on('exit', (code, signal) => {
      if (signal) {
        // a host dereference of cudaMalloc memory lands in the device window, which the program cannot touch
        say(`ptxdbg: ${app} was killed by ${signal}${signal === 'SIGSEGV' ? ' (if it read or wrote device memory from the host: cudaMalloc memory is not host-accessible, as on a GPU; cudaMallocManaged memory is)' : ''}`);
      }
      done(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
  // a launch stops once the program is gone (its exit event waits for the launch to return)
  if (child.pid !== undefined) device.programGone = processGone(child.pid);
  const socket = child.stdio[3] as Duplex | null;
  // an internal error while serving ends the connection (the program sees it lost) and is
  // rethrown once the program has exited
  let internal: unknown;
  const served = socket
    ? serveProgram(socket, device, basename(app), onLaunch, say, child.pid).catch((e: unknown) => { internal = e; })
    : Promise.resolve();
  // a child that cannot be started never connects: wait for whichever ends first
  const code = await spawned;
  if (code instanceof Error) {
    socket?.destroy();
    process.stderr.write(`ptxdbg: cannot run ${app}: ${(code as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such program' : code.message}\n`);
    return EXIT_USAGE;
  }
  await served;
  if (internal !== undefined) throw internal;
  if (!device.connected) {
    say(`ptxdbg: ${app} never registered CUDA code with the ptxdbg runtime: build it with nvcc -cudart shared (the default, -cudart static, links NVIDIA's runtime into the program)`);
  }
  breaks.forEach((b, i) => {
    if (!hit.has(i)) say(`ptxdbg: --break ${b.kernel}${b.nth === undefined ? '' : `#${b.nth}`}: the program made no such launch`);
  });
  if (tool) {
    say(`${PREFIX}ERROR SUMMARY: ${errors} error${errors === 1 ? '' : 's'}`);
    if (errors > 0 && code === 0) return 1;
  }
  return code;
}

interface Ran {
  fault: FaultReport | undefined;
  stdout: string;
  steps: number;
  instrs: number;
  /** Sanitizer findings, each as its report lines. */
  findings: string[][];
  /** `exec --races`: the checker's report when it found something. */
  raceReport: RaceReport | undefined;
  /** The grid's machine (its child grids wait on it). */
  machine: Machine;
  /** How its CTAs were shared among threads, when more than one was asked for. */
  parallel?: ParallelRun | undefined;
}

/** Run one launch, under the checker the options ask for. */
function runLaunch(device: Device, r: LaunchRequest, opts: RunOptions, o: ExecOptions): Ran {
  const tool = o.sanitize;
  if (o.races || tool === 'racecheck' || tool === 'synccheck') {
    const { program, launch } = device.launchOf(r);
    const { result, report, machine } = checkRun(program, launch, opts);
    machine.release();
    const findings = tool === 'racecheck' ? report.races.map(racecheckError) : tool === 'synccheck' ? report.barrierErrors.map(synccheckError) : [];
    const found = !tool && (report.races.length > 0 || report.barrierErrors.length > 0);
    return { fault: result.fault, stdout: result.stdout, steps: result.stats.warpSteps, instrs: result.stats.threadInstructions, findings, raceReport: found ? report : undefined, machine };
  }
  const before = device.initCheck?.findings.size ?? 0;
  const { result, machine, parallel } = device.run(r, opts, threadCount(o.workers));
  // initcheck findings are per instruction for the whole program: the ones this launch added
  const findings = device.initCheck ? [...device.initCheck.findings.values()].slice(before).map(initcheckError) : [];
  return { fault: result.fault, stdout: result.stdout, steps: result.stats.warpSteps, instrs: result.stats.threadInstructions, findings, raceReport: undefined, machine, parallel };
}


/**
 * Whether process `pid` (our child, not yet reaped while a launch holds the event loop) has
 * ended: a zombie or gone in /proc. Undefined where there is no /proc to ask.
 */
function processGone(pid: number): (() => boolean) | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  return () => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ESRCH';
    }
    // "pid (comm) S ...": the state follows the last parenthesis (comm may hold any)
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state === 'Z' || state === 'X';
  };
}

/** Why a file operation failed, in words (the message without the syscall). */
function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'a file of that name is in the way'
    : err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied'
    : err.code === 'ENOSPC' ? 'no space left on the device' : err.message;
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
