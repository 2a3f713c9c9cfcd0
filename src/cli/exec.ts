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
import { Device, WINDOW_BASE, type LaunchRequest } from '../host/device.js';
import { serveProgram, type LaunchOutcome, type SanitizeHooks } from '../host/server.js';
import { type LaunchSnapshot, snapshotLaunch, writeBundle, writeBundleOutputs } from '../host/bundle.js';
import { CUDA, CudaError } from '../host/errors.js';
import { MAX_DEVICE_BYTES } from '../exec/launch.js';
import { apiError, initcheckError, leakError, memcheckError, racecheckAnalysis, racecheckHazard, raceLevel, synccheckError } from '../host/sanitize.js';
import { SanitizeSession, type SanitizeOptions, type SanitizeTool } from '../host/sanitizer.js';
import { Symbolizer, type HostFrame, type RawFrame } from '../host/backtrace.js';
import { faultingLanes } from '../host/lanes.js';
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
  /** Threads for a launch's independent CTAs (src/exec/parallel/); default 1. */
  workers?: number | 'auto' | undefined;
  /** `--device-memory SIZE`: the device's memory (bytes, or a number with K, M or G). */
  deviceMemory?: string | undefined;
}

/** `--device-memory`: bytes, or a number with K, M or G (KiB, MiB, GiB), up to what the emulator can address. */
export function parseDeviceMemory(spec: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(spec.trim());
  const bytes = m ? Math.floor(Number(m[1]) * 1024 ** ' kmg'.indexOf(m[2]!.toLowerCase() || ' ')) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 << 20) throw new UsageError(`--device-memory ${spec}: expected a size of at least 1M, such as 2G, 1536M or 1073741824`);
  if (bytes > MAX_DEVICE_BYTES) throw new UsageError(`--device-memory ${spec}: more than the ${MAX_DEVICE_BYTES / 2 ** 30} GiB ptxdbg can emulate (kernels address global memory with 31-bit offsets)`);
  return bytes;
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
  const device = new Device(o.deviceMemory === undefined ? undefined : parseDeviceMemory(o.deviceMemory));
  if (o.sanitize?.tool === 'initcheck') device.initCheck = new InitCheck();
  const say = (line: string): void => { process.stderr.write(line + '\n'); };
  const tool = o.sanitize?.tool;
  let san: SanitizeSession | undefined;
  try {
    san = o.sanitize ? new SanitizeSession(o.sanitize) : undefined;
  } catch (e) {
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    const file = (e as NodeJS.ErrnoException).path ?? 'the report file';
    throw new UsageError(`cannot write ${file}: ${fsReason(e)}`);
  }
  san?.banner();
  const symbols = new Symbolizer();
  // where each live allocation was made (by its address), for leak records
  const allocSites = new Map<bigint, RawFrame[]>();
  if (san && tool === 'memcheck' && san.o.leakCheck) device.beforeReset = () => reportLeaks(device, san!, (ptr) => symbols.backtrace(allocSites.get(ptr) ?? []));
  let launches = 0;
  const perKernel = new Map<string, number>();

  const onLaunch = async (r: LaunchRequest): Promise<LaunchOutcome> => {
    const index = ++launches;
    device.launches = index;
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
    // launches the filters or --launch-skip/--launch-count leave out run unchecked
    const checkedBy = san?.checks(r.kernel) ? tool : undefined;
    // memcheck reports every faulting lane: the memory the launch starts from, to run it again
    const before = checkedBy === 'memcheck' && threadCount(o.workers) === 1 ? device.arena.bank.u8.slice() : undefined;
    let ran: Ran;
    try {
      ran = runLaunch(device, r, opts, o, checkedBy);
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      say(`ptxdbg: launch ${index} ${label}: ${e.message}`);
      return { status: e.code, stdout: '' };
    }
    const { fault, stdout, steps, instrs } = ran;
    for (const f of ran.findings) san!.record(f.lines, f.level, f.kind, f.times);
    if (ran.raceReport) {
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
    let status: number = faultStatus(fault);
    // memcheck reports the faults it knows in compute-sanitizer's layout; others as ptxdbg does
    const frames = symbols.backtrace(r.hostFrames ?? [], r.kernel);
    const lines = checkedBy === 'memcheck' ? memcheckError(fault, device, frames) : undefined;
    if (lines) {
      const lanes = before && (fault.kind === 'oob' || fault.kind === 'misaligned' || fault.kind === 'invalid' || fault.kind === 'readonly')
        ? faultingLanes(device, r, opts, before) : undefined;
      for (const f of lanes ?? [fault]) san!.record(memcheckError(f, device, frames) ?? lines);
      // compute-sanitizer ends the context on a memory error (later calls: unspecified launch
      // failure), or with --destroy-on-device-error kernel only the kernel (the launch succeeds)
      status = san!.o.destroyOnDeviceError === 'kernel' ? CUDA.success : CUDA.launchFailure;
    } else say(`${formatFault(fault)}\n  (launch ${index} ${label}; the program gets error ${status})`);
    if (o.breakOnFault && !breakHere) {
      say('ptxdbg: opening the debugger on the faulting launch; the program waits until you quit it');
      await debugSnapshot(snap!, o, true);
    }
    return { status, stdout };
  };

  // memcheck reports every failed CUDA call but the polling ones (compute-sanitizer's exclusions)
  const hooks: SanitizeHooks = {
    apiError: (e) => {
      if (!san || tool !== 'memcheck' || API_NOT_REPORTED.has(`${e.api}:${e.code}`)) return;
      san.record(apiError(e, symbols.backtrace(e.frames)));
    },
    allocSite: (ptr, frames) => { allocSites.set(ptr, frames); },
  };
  const child = spawn(app, argv.slice(1), {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [lib, process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':'),
      PTXDBG_FD: '3',
      ...(san ? { PTXDBG_SANITIZE: '1' } : {}),
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
    ? serveProgram(socket, device, basename(app), onLaunch, say, child.pid, hooks).catch((e: unknown) => { internal = e; })
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
  if (san) {
    // at exit the context goes: what is still allocated leaked
    if (device.beforeReset) device.beforeReset();
    return san.finish(code);
  }
  return code;
}

/** API errors compute-sanitizer does not report: polling (not ready) and peer access already set. */
const API_NOT_REPORTED = new Set(['cudaEventQuery:600', 'cudaStreamQuery:600', 'cudaDeviceEnablePeerAccess:704', 'cudaDeviceDisablePeerAccess:705']);

/** `--leak-check full`: every cudaMalloc'd (or managed) allocation still live. */
function reportLeaks(device: Device, san: SanitizeSession, site: (ptr: bigint) => HostFrame[]): void {
  for (const a of device.allocations()) {
    const kind = device.kindOf(a);
    if (kind === 'host') continue;
    san.leaks.bytes += a.size;
    san.leaks.allocations++;
    const ptr = WINDOW_BASE + BigInt(a.base);
    san.record(leakError(ptr, a.size, site(ptr)));
  }
}

/** A sanitizer record of a launch and how it counts (sanitizer.ts). */
interface Finding { lines: string[]; level: 'error' | 'warn'; kind: 'error' | 'hazard' | 'note'; times?: number }

interface Ran {
  fault: FaultReport | undefined;
  stdout: string;
  steps: number;
  instrs: number;
  /** Sanitizer findings, each as its report lines. */
  findings: Finding[];
  /** `exec --races`: the checker's report when it found something. */
  raceReport: RaceReport | undefined;
  /** The grid's machine (its child grids wait on it). */
  machine: Machine;
  /** How its CTAs were shared among threads, when more than one was asked for. */
  parallel?: ParallelRun | undefined;
}

/** Run one launch, under the checker the options ask for (`tool`: this launch is checked). */
function runLaunch(device: Device, r: LaunchRequest, opts: RunOptions, o: ExecOptions, tool: SanitizeTool | undefined): Ran {
  if (o.races || tool === 'racecheck' || tool === 'synccheck') {
    const { program, launch } = device.launchOf(r);
    const { result, report, machine } = checkRun(program, launch, opts, (m) => device.runWhileWaitedFor(m));
    machine.release();
    const findings = tool === 'racecheck' ? raceFindings(report, o.sanitize!.racecheckReport)
      : tool === 'synccheck' ? report.barrierErrors.map((e): Finding => ({ lines: synccheckError(e), level: 'error', kind: 'error' })) : [];
    const found = !tool && (report.races.length > 0 || report.barrierErrors.length > 0);
    return { fault: result.fault, stdout: result.stdout, steps: result.stats.warpSteps, instrs: result.stats.threadInstructions, findings, raceReport: found ? report : undefined, machine };
  }
  const before = device.initCheck?.findings.length ?? 0;
  const totalBefore = device.initCheck?.total ?? 0;
  // an unchecked launch under initcheck still writes: its stores initialize memory
  const { result, machine, parallel } = device.run(r, opts, threadCount(o.workers));
  // initcheck findings are kept for the whole program: the ones this launch added
  const findings = device.initCheck && tool === 'initcheck'
    ? device.initCheck.findings.slice(before).map((f): Finding => ({ lines: initcheckError(f), level: 'error', kind: 'error' })) : [];
  // past the kept ones, reads are only counted: they are errors all the same
  const unkept = (device.initCheck?.total ?? 0) - totalBefore - findings.length;
  if (tool === 'initcheck' && unkept > 0) findings.push({ lines: [], level: 'error', kind: 'error', times: unkept });
  return { fault: result.fault, stdout: result.stdout, steps: result.stats.warpSteps, instrs: result.stats.threadInstructions, findings, raceReport: undefined, machine, parallel };
}


/** racecheck's records of a launch's races: analysis, hazard or both (then only analyses count). */
function raceFindings(report: RaceReport, mode: 'hazard' | 'analysis' | 'all'): Finding[] {
  const out: Finding[] = [];
  for (const r of report.races) {
    const level = raceLevel(r);
    if (mode !== 'analysis') out.push({ lines: racecheckHazard(r), level, kind: mode === 'all' ? 'note' : 'hazard' });
    if (mode !== 'hazard') out.push({ lines: racecheckAnalysis(r), level, kind: 'hazard' });
  }
  return out;
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
    : err.code === 'ENOSPC' ? 'no space left on the device'
    : err.code === 'ENOENT' ? 'its folder does not exist'
    : err.code === 'EISDIR' ? 'it is a directory' : err.message;
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
