/**
 * A whole CUDA program under ptxdbg: start it on the replacement runtime (src/cudart), serve its
 * requests (server.ts), and decide for each launch what happens to it — the launch policy of
 * `exec`, `capture`, `sanitize` and the whole-program recording:
 *   - break: `--break K#N` opens the debugger on that launch while the program waits;
 *   - capture: a bundle per launch (bundle.ts);
 *   - sanitize: the launch runs under the chosen compute-sanitizer tool and its findings are kept;
 *   - record: the launch, the host calls around it and their call sites go into the program's
 *     recording (recording.ts);
 *   - child grids: grids launched from device code run as launches of their own, before the
 *     parent counts as finished.
 * The CLI (src/cli/exec.ts) only configures this: it parses options and supplies what lies
 * above the host layer (opening the debugger, the worker-threads line).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { FaultReport, Machine, RunOptions } from '../exec/machine.js';
import type { ParallelRun, Threads } from '../exec/parallel/pool.js';
import { savePages } from '../exec/bank-pages.js';
import type { RaceReport } from '../races/types.js';
type RaceChecker = typeof import('../races/run.js'); // imported when a launch is checked
import { plainName, printName } from '../ptx/names.js';
import { type Device, WINDOW_BASE, type LaunchRequest } from './device.js';
import { serveProgram, type HostOp, type LaunchOutcome, type SanitizeHooks } from './server.js';
import { bundleRefusal, type LaunchSnapshot, snapshotLaunch, writeBundle, writeBundleOutputs } from './bundle.js';
import { CUDA, CudaError } from './errors.js';
import { apiError, initcheckError, leakError, memcheckError, racecheckAnalysis, racecheckHazard, raceLevel, synccheckError } from './sanitize.js';
import type { SanitizeSession, SanitizeTool } from './sanitizer.js';
import { lineSymbolizer, Symbolizer, type HostFrame, type RawFrame } from './backtrace.js';
import { faultingLanes } from './lanes.js';
import {
  callSiteOf, type CallSite, type HostLineLookup, type HostWrite, ImageTaker, type LaunchEvent, type ProgramRecording, type RecordingStop,
} from './recording.js';

/** A `--break` request: KERNEL or KERNEL#N (the Nth launch of it, from 1). */
export interface BreakSpec { kernel: string; nth: number | undefined }

/** Recording a whole program (`ptxdbg ./app`): what to record and within what. */
export interface RecordOptions {
  /** `--record K1,K2`: only these kernels' launches are reopenable; undefined: all. */
  kernels?: readonly string[] | undefined;
  /** Bytes the recording may hold (images' pages and host bytes); past it, later launches run unrecorded. */
  budget: number;
  /** Called after each launch: launches made, launches recorded, bytes held. */
  onProgress?: ((p: { launches: number; recorded: number; bytes: number }) => void) | undefined;
  /** host address → file:line (src/host/hostlines.ts); undefined: call sites by function name. */
  lines?: HostLineLookup | undefined;
}

/** The progress line of a recording (`\r`-rewritten on a terminal by the caller). */
export function recordingProgressLine(p: { launches: number; recorded: number; bytes: number }): string {
  return `ptxdbg: recording: ${p.launches} launch${p.launches === 1 ? '' : 'es'}, ${p.recorded} recorded, ${(p.bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** How the program's launches are handled (the CLI fills it from its options). */
export interface LaunchPolicy {
  readonly opts: RunOptions;
  /** Threads for a launch's independent CTAs (1: sequential; 'auto': one per core for long launches). */
  readonly threads: Threads;
  readonly stats: boolean;
  readonly races: boolean;
  readonly breaks: readonly BreakSpec[];
  readonly breakOnFault: boolean;
  /** Bundles written per launch (`kernel` undefined: every launch). */
  readonly capture: { dir: string; kernel: string | undefined } | undefined;
  readonly sanitize: SanitizeSession | undefined;
  readonly record: RecordOptions | undefined;
  /** One line for the user (stderr). */
  say(line: string): void;
  /** Open the debugger on a launch and resolve when the user quits it (`atFault`: run to the fault first). */
  openDebugger(snap: LaunchSnapshot, atFault: boolean): Promise<void>;
  /** The `--stats` words for a launch shared among threads. */
  threadsLine(p: ParallelRun): string;
}

/** Whether `want` (a plain or mangled name) names kernel `mangled`. */
export const kernelMatches = (want: string, mangled: string): boolean => want === mangled || want === plainName(mangled);

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

/** Distinct call sites remembered (a program calling from more places names the rest each time). */
const SITES_KEPT = 4096;

/** API errors compute-sanitizer does not report: polling (not ready) and peer access already set. */
const API_NOT_REPORTED = new Set(['cudaEventQuery:600', 'cudaStreamQuery:600', 'cudaDeviceEnablePeerAccess:704', 'cudaDeviceDisablePeerAccess:705']);

/**
 * The launches of one program: the policy applied to each, the host events between them, and
 * (when recording) the program's recording.
 */
export class ProgramLaunches {
  private launches = 0;
  private readonly perKernel = new Map<string, number>();
  private readonly hit = new Set<number>();
  /** Host frames by name (and, once ready() has loaded hostlines.ts, by source line). */
  private symbols = new Symbolizer();
  /** Where each live allocation was made (by its address), for leak records. */
  private readonly allocSites = new Map<bigint, RawFrame[]>();
  /** A bundle that cannot be written is reported and capturing stops; the program runs on. */
  private capturing: boolean;
  readonly recording: ProgramRecording | undefined;
  private readonly images: ImageTaker | undefined;
  /** The call site the runtime sent for the request being served (Op.Site). */
  private pendingSite: { frames: RawFrame[]; api: string } | undefined;
  private recordedLaunches = 0;
  /** Call sites already named, by API, kernel and frames (takeSite). */
  private readonly sites = new Map<string, CallSite>();

  constructor(private readonly device: Device, private readonly p: LaunchPolicy, app = '', args: readonly string[] = []) {
    this.capturing = p.capture !== undefined;
    const san = p.sanitize;
    if (san && san.o.tool === 'memcheck' && san.o.leakCheck) device.beforeReset = () => this.reportLeaks();
    if (p.record) {
      this.recording = { app, args, events: [], launches: [], modules: [], bytes: 0, stopped: undefined, stoppedAt: undefined, exitCode: undefined };
      this.images = new ImageTaker(device);
      device.firstBankOnly = 'recording the program';
    }
  }

  /** Before the program runs: frames come only under sanitize and recording, named with source lines. */
  async ready(): Promise<void> {
    if (this.p.sanitize !== undefined || this.p.record !== undefined) this.symbols = await lineSymbolizer();
  }

  /** The hooks the server calls besides launches (sanitize's reports, recording's host events). */
  get hooks(): SanitizeHooks {
    const san = this.p.sanitize;
    return {
      // memcheck reports every failed CUDA call but the polling ones (compute-sanitizer's exclusions)
      apiError: (e) => {
        if (!san || san.o.tool !== 'memcheck' || API_NOT_REPORTED.has(`${e.api}:${e.code}`)) return;
        san.record(apiError(e, this.symbols.backtrace(e.frames)));
      },
      allocSite: (ptr, frames) => { this.allocSites.set(ptr, frames); },
      site: (frames, api) => { this.pendingSite = { frames, api }; },
      hostEvent: (e) => this.hostEvent(e),
    };
  }

  /** The `--break` requests no launch matched. */
  unhitBreaks(): BreakSpec[] { return this.p.breaks.filter((_, i) => !this.hit.has(i)); }

  /** Stop recording (Ctrl-C, or the budget): what was recorded is kept; later launches run unrecorded. */
  stopRecording(why: RecordingStop): void {
    if (this.recording && !this.recording.stopped) {
      this.recording.stopped = why;
      this.recording.stoppedAt = this.recording.events.length;
      this.images?.detach();
    }
  }

  /** The program has ended with `code`. */
  finish(code: number): void {
    if (this.recording) this.recording.exitCode = code;
    this.images?.detach();
  }

  /** Kernel printf or the program's own output, at its place on the timeline. */
  output(stream: 'stdout' | 'stderr' | 'printf', text: string): void {
    const rec = this.recording;
    if (!rec || text === '') return;
    rec.events.push({ kind: 'output', index: rec.events.length, after: this.launches, stream, text });
  }

  private takeSite(kernel?: string): CallSite | undefined {
    const s = this.pendingSite;
    this.pendingSite = undefined;
    if (!s) return undefined;
    // a loop calls from the same places again and again: each site is read from the ELF once
    let key = `${s.api}\0${kernel ?? ''}`;
    for (const f of s.frames) key += `\0${f.path}\0${f.offset}\0${f.symbol}`;
    let site = this.sites.get(key);
    if (!site) {
      site = callSiteOf(s.api, s.frames, this.symbols, this.p.record?.lines, kernel);
      if (this.sites.size < SITES_KEPT) this.sites.set(key, site);
    }
    return site;
  }

  private recordingOn(): boolean { return this.recording !== undefined && this.recording.stopped === undefined; }

  private hostEvent(op: HostOp): void {
    const rec = this.recording;
    const site = this.takeSite();
    if (!rec) return;
    const writes: HostWrite[] = [];
    const offsetOf = (a: bigint): number | undefined => {
      const off = a - WINDOW_BASE;
      return off >= 0n && off < BigInt(this.device.arena.bank.size) ? Number(off) : undefined;
    };
    if (!this.recordingOn()) { /* after a stop: the event without its bytes */ }
    else if (op.op === 'write' || op.op === 'sync-in' || op.op === 'copy') {
      const off = offsetOf(op.dst);
      if (off !== undefined && op.n > 0) writes.push({ offset: off, bytes: this.device.arena.bank.u8.slice(off, off + op.n) });
    } else if (op.op === 'set' || op.op === 'malloc') {
      const off = offsetOf(op.dst);
      if (off !== undefined && op.n > 0) writes.push({ offset: off, n: op.n, fill: op.op === 'set' ? op.value : 0 });
    }
    for (const w of writes) if ('bytes' in w) rec.bytes += w.bytes.byteLength;
    rec.events.push({ kind: 'host', index: rec.events.length, after: this.launches, op, site, writes });
    this.checkBudget();
  }

  private checkBudget(): void {
    const r = this.p.record;
    if (r && this.recording && this.recording.bytes > r.budget && this.recordingOn()) {
      this.p.say(`ptxdbg: the recording reached its budget of ${r.budget} bytes after launch ${this.launches}; later launches run unrecorded`);
      this.stopRecording('budget');
    }
  }

  /** Record a launch about to run; its event (undefined when not recording). */
  private recordLaunch(index: number, r: LaunchRequest, site: CallSite | undefined): LaunchEvent | undefined {
    const rec = this.recording;
    if (!rec) return undefined;
    for (const m of this.device.modules.slice(rec.modules.length)) rec.modules.push({ ptx: m.ptx, label: m.label });
    const wanted = this.p.record!.kernels === undefined || this.p.record!.kernels.some((k) => kernelMatches(k, r.kernel));
    let params: LaunchEvent['params'];
    try {
      const { launch } = this.device.launchOf(r);
      this.device.placeModule(r.module); // its variables are part of its start
      params = { names: launch.args.map((a) => a.name), slots: this.device.kernelInfo(r.module, r.kernel).params };
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      params = undefined;
    }
    // an unrecorded launch's start is the previous image plus host writes: not kept
    const start = wanted && params && this.recordingOn() ? this.images!.take() : undefined;
    if (start) { rec.bytes += start.bytes; this.recordedLaunches++; }
    const e: LaunchEvent = {
      kind: 'launch', index: rec.events.length, launch: index, kernel: r.kernel, module: r.module, grid: r.grid, block: r.block, site,
      request: r, params, start, end: undefined, steps: undefined, stdout: '', fault: undefined,
    };
    rec.events.push(e);
    rec.launches.push(e);
    return e;
  }

  private launchDone(e: LaunchEvent | undefined, steps: number, stdout: string, fault: FaultReport | undefined): void {
    if (!e || !this.recording) return;
    e.steps = steps;
    e.stdout = stdout;
    e.fault = fault;
    if (this.recordingOn()) {
      e.end = this.images!.take();
      this.recording.bytes += e.end.bytes;
    }
    this.output('printf', stdout);
    this.p.record!.onProgress?.({ launches: this.launches, recorded: this.recordedLaunches, bytes: this.recording.bytes });
    this.checkBudget();
  }

  /** The server's launch handler: the policy for one launch (and the grids it launches from device code). */
  readonly onLaunch = async (r: LaunchRequest, parentSite?: CallSite): Promise<LaunchOutcome> => {
    const { device, p } = this;
    const say = p.say;
    const index = ++this.launches;
    device.launches = index;
    const nth = (this.perKernel.get(r.kernel) ?? 0) + 1;
    this.perKernel.set(r.kernel, nth);
    // a child grid has no call of its own: its parent's site
    const site = r.depth ? parentSite : this.takeSite(r.kernel);
    const label = `${printName(r.kernel)}<<<(${r.grid.join(',')}),(${r.block.join(',')})>>>${r.launchedBy ? ` (launched from the device by ${r.launchedBy})` : ''}`;
    const breakAt = p.breaks.findIndex((b) => kernelMatches(b.kernel, r.kernel) && (b.nth === undefined || b.nth === nth));
    let breakHere = breakAt >= 0;
    if (breakHere) this.hit.add(breakAt);
    let captureHere = this.capturing && (p.capture!.kernel === undefined || kernelMatches(p.capture!.kernel, r.kernel));
    // memory a bundle cannot hold: said once where asked for, and the launch runs on without it
    const refusal = breakHere || captureHere || p.breakOnFault ? bundleRefusal(device) : undefined;
    if (refusal !== undefined && (breakHere || captureHere)) {
      say(`ptxdbg: launch ${index} ${label}: cannot ${breakHere ? 'open the debugger on' : 'capture'} it: ${refusal}; it runs on without ${breakHere ? 'the debugger' : 'a bundle'}`);
      breakHere = captureHere = false;
    }
    let snap: LaunchSnapshot | undefined;
    try {
      if (refusal === undefined && (breakHere || captureHere || p.breakOnFault)) snap = snapshotLaunch(device, r);
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      say(`ptxdbg: launch ${index} ${label}: ${e.message}`);
      return { status: e.code, stdout: '' };
    }
    const recorded = this.recordLaunch(index, r, site);
    const bundleDir = captureHere ? join(p.capture!.dir, `${String(index).padStart(4, '0')}-${plainName(r.kernel)}`) : undefined;
    if (bundleDir) this.keep(bundleDir, () => writeBundle(bundleDir, snap!));
    if (breakHere) {
      say(`ptxdbg: launch ${index} ${label} (launch ${nth} of ${printName(r.kernel)}): opening the debugger; the program waits until you quit it`);
      await p.openDebugger(snap!, false);
    }
    const t0 = performance.now();
    const san = p.sanitize;
    const tool = san?.o.tool;
    // launches the filters or --launch-skip/--launch-count leave out run unchecked
    const checkedBy = san?.checks(r.kernel) ? tool : undefined;
    // memcheck reports every faulting lane: the memory the launch starts from, to run it again
    // (not with memory past bank 0: only bank 0 is saved, so the first fault alone is reported)
    const before = checkedBy === 'memcheck' && p.threads === 1 && device.arena.far.length === 0 ? savePages(device.arena.bank) : undefined;
    // the race checker is loaded for the runs that use it (a plain exec starts without it)
    const races = p.races || checkedBy === 'racecheck' || checkedBy === 'synccheck' ? await import('../races/run.js') : undefined;
    let ran: Ran;
    try {
      ran = runLaunch(device, r, p, checkedBy, races);
    } catch (e) {
      if (!(e instanceof CudaError)) throw e;
      say(`ptxdbg: launch ${index} ${label}: ${e.message}`);
      this.launchDone(recorded, 0, '', undefined);
      return { status: e.code, stdout: '' };
    }
    const { fault, stdout, steps, instrs } = ran;
    this.launchDone(recorded, steps, stdout, fault);
    // a GPU keeps printf records in a buffer of cudaLimitPrintfFifoSize (1 MiB by default) and
    // loses what does not fit; where that cuts depends on its record format, so say it, not cut
    if (stdout.length > PRINTF_FIFO) {
      say(`ptxdbg: launch ${index} ${label}: its printf output is ${Buffer.byteLength(stdout)} bytes, more than a GPU's printf buffer (cudaLimitPrintfFifoSize, 1 MiB by default) may hold; a GPU would lose the output past it, ptxdbg shows all of it`);
    }
    for (const f of ran.findings) san!.record(f.lines, f.level, f.kind, f.times);
    if (ran.raceReport) {
      say(`ptxdbg: launch ${index} ${label}:`);
      process.stderr.write((await import('../races/format.js')).formatReport(ran.raceReport));
    }
    const ms = performance.now() - t0;
    if (p.stats) say(`ptxdbg: launch ${index} ${label}: ${steps} warp-steps, ${instrs} thread-instructions, ${ms.toFixed(1)} ms${ran.parallel ? `; ${p.threadsLine(ran.parallel)}` : ''}`);
    // grids it launched from device code: launches of their own, run before the parent counts as
    // finished (children.ts), so a bundle's expected outputs include them as `run` reproduces them
    let all = stdout;
    let childStatus: number = CUDA.success;
    if (!fault) {
      for (const c of device.childRequests(ran.machine, r.module)) {
        const out = await this.onLaunch(c, site);
        all += out.stdout;
        if (out.status !== CUDA.success) { childStatus = out.status; break; }
      }
    }
    recycleCtaBanks(ran.machine);
    if (bundleDir && this.capturing) this.keep(bundleDir, () => writeBundleOutputs(bundleDir, device, snap!, all));
    if (!fault) return { status: childStatus, stdout: all };
    let status: number = faultStatus(fault);
    // memcheck reports the faults it knows in compute-sanitizer's layout; others as ptxdbg does
    const frames = this.symbols.backtrace(r.hostFrames ?? [], r.kernel);
    const lines = checkedBy === 'memcheck' ? memcheckError(fault, device, frames) : undefined;
    if (lines) {
      const lanes = before && (fault.kind === 'oob' || fault.kind === 'misaligned' || fault.kind === 'invalid' || fault.kind === 'readonly')
        ? faultingLanes(device, r, p.opts, before) : undefined;
      for (const f of lanes ?? [fault]) san!.record(memcheckError(f, device, frames) ?? lines);
      // compute-sanitizer ends the context on a memory error (later calls: unspecified launch
      // failure), or with --destroy-on-device-error kernel only the kernel (the launch succeeds)
      status = san!.o.destroyOnDeviceError === 'kernel' ? CUDA.success : CUDA.launchFailure;
    } else say(`${(await import('../engine/index.js')).formatFault(fault)}\n  (launch ${index} ${label}; the program gets error ${status})`);
    if (p.breakOnFault && !breakHere) {
      if (snap === undefined) say(`ptxdbg: cannot open the debugger on the faulting launch: ${refusal ?? 'its memory was not kept'}`);
      else {
        say('ptxdbg: opening the debugger on the faulting launch; the program waits until you quit it');
        await p.openDebugger(snap, true);
      }
    }
    return { status, stdout };
  };

  private keep(dir: string, write: () => void): void {
    try {
      write();
    } catch (e) {
      if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
      this.p.say(`ptxdbg: cannot write the bundle ${dir}: ${fsReason(e)}; capturing stops`);
      this.capturing = false;
    }
  }

  /** `--leak-check full`: every cudaMalloc'd (or managed) allocation still live. */
  private reportLeaks(): void {
    const san = this.p.sanitize!;
    const site = (ptr: bigint): HostFrame[] => this.symbols.backtrace(this.allocSites.get(ptr) ?? []);
    for (const a of this.device.allocations()) {
      const kind = this.device.kindOf(a);
      if (kind === 'host') continue;
      san.leaks.bytes += a.size;
      san.leaks.allocations++;
      const ptr = WINDOW_BASE + BigInt(a.base);
      san.record(leakError(ptr, a.size, site(ptr)));
    }
  }
}

/**
 * Give a finished launch's warp-local and shared banks back for the next launch's machine (its
 * grids from device code have run): each warp holds 32 KiB of local memory, 1 MiB for a launch of
 * 32 warps, made new at every launch otherwise, and V8 answers that external memory with
 * collections (one every 60 or so launches of a small kernel). The machine is not used after.
 */
function recycleCtaBanks(m: Machine): void {
  for (const c of [...m.resident, ...m.ctaPool]) {
    c.shared.recycle();
    for (const w of c.warps) w.local.recycle();
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

/** Run one launch, under the checker the policy asks for (`tool`: this launch is checked; `races`: loaded for it). */
function runLaunch(device: Device, r: LaunchRequest, p: LaunchPolicy, tool: SanitizeTool | undefined, races: RaceChecker | undefined): Ran {
  if (races) {
    const { checkRun, LaunchSetupError } = races;
    const { program, launch } = device.launchOf(r);
    let checked;
    try {
      checked = checkRun(program, launch, p.opts, (m) => device.runWhileWaitedFor(m));
    } catch (e) {
      // the launch itself was checked (launchOf): what is left is the checker's own limit (its
      // shadow of a device of gigabytes), said to the user; the program gets an error status
      if (!(e instanceof LaunchSetupError)) throw e;
      throw new CudaError(CUDA.notSupported, `the race checker cannot check it: ${e.message}`);
    }
    const { result, report, machine } = checked;
    machine.release();
    const findings = tool === 'racecheck' ? raceFindings(report, p.sanitize!.o.racecheckReport)
      : tool === 'synccheck' ? report.barrierErrors.map((e): Finding => ({ lines: synccheckError(e), level: 'error', kind: 'error' })) : [];
    const found = !tool && (report.races.length > 0 || report.barrierErrors.length > 0);
    return { fault: result.fault, stdout: result.stdout, steps: result.stats.warpSteps, instrs: result.stats.threadInstructions, findings, raceReport: found ? report : undefined, machine };
  }
  const before = device.initCheck?.findings.length ?? 0;
  const totalBefore = device.initCheck?.total ?? 0;
  // an unchecked launch under initcheck still writes: its stores initialize memory
  const { result, machine, parallel } = device.run(r, p.opts, p.threads);
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

/** The default cudaLimitPrintfFifoSize (CUDA Runtime API, cudaDeviceSetLimit): 1 MiB. */
const PRINTF_FIFO = 1 << 20;

/** How the program ended: its exit code, or why it could not be started. */
export type ProgramExit = { code: number } | { notStarted: string };

/**
 * Run `argv` (the program and its arguments) on the runtime in `lib`, serving its requests with
 * `launches`; resolves when it has exited. `captureOutput`: its stdout/stderr come through ptxdbg
 * (passed on, and kept on the recording's timeline) instead of going straight to the terminal.
 */
export async function runProgram(argv: readonly string[], lib: string, device: Device, launches: ProgramLaunches,
  o: {
    sanitize: boolean; captureOutput?: boolean;
    /** The program's working directory and added environment (a DAP launch configuration's cwd and env). */
    cwd?: string | undefined; env?: Readonly<Record<string, string>> | undefined;
    /** Keep this process's stdio out of it (DAP speaks on them): no stdin, its output only recorded. */
    detached?: boolean;
  }): Promise<ProgramExit> {
  const app = argv[0]!;
  const say = (line: string): void => { process.stderr.write(line + '\n'); };
  await launches.ready();
  const recording = launches.recording !== undefined;
  const piped = o.captureOutput === true;
  const detached = o.detached === true;
  const child = spawn(app, argv.slice(1), {
    stdio: [detached ? 'ignore' : piped ? 'pipe' : 'inherit', piped || detached ? 'pipe' : 'inherit', piped || detached ? 'pipe' : 'inherit', 'pipe'],
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    env: {
      ...process.env,
      ...o.env,
      LD_LIBRARY_PATH: [lib, process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':'),
      PTXDBG_FD: '3',
      ...(o.sanitize ? { PTXDBG_SANITIZE: '1' } : {}),
      ...(recording ? { PTXDBG_SITES: '1' } : {}),
    },
  });
  if (detached) {
    child.stdout!.on('data', (b: Buffer) => { launches.output('stdout', b.toString('utf8')); });
    child.stderr!.on('data', (b: Buffer) => { launches.output('stderr', b.toString('utf8')); });
  } else if (piped) {
    process.stdin.pipe(child.stdin!);
    child.stdout!.on('data', (b: Buffer) => { process.stdout.write(b); launches.output('stdout', b.toString('utf8')); });
    child.stderr!.on('data', (b: Buffer) => { process.stderr.write(b); launches.output('stderr', b.toString('utf8')); });
  }
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
    ? serveProgram(socket, device, basename(app), launches.onLaunch, say, child.pid, launches.hooks).catch((e: unknown) => { internal = e; })
    : Promise.resolve();
  // a child that cannot be started never connects: wait for whichever ends first
  const code = await spawned;
  if (piped && !detached) process.stdin.unpipe(child.stdin!);
  if (code instanceof Error) {
    socket?.destroy();
    return { notStarted: notStartedReason(app, code as NodeJS.ErrnoException) };
  }
  await served;
  if (internal !== undefined) throw internal;
  // 'exit' can come before the last of its output has been read: wait for the pipes to end (a
  // grandchild still holding them open gets a second, then the recording ends without it)
  if (piped || detached) await Promise.race([Promise.all([ended(child.stdout), ended(child.stderr)]), new Promise((r) => setTimeout(r, 1000).unref())]);
  launches.finish(code);
  return { code };
}

/** Why a program could not be started, in words (node's errno text names the syscall, not the cause). */
function notStartedReason(app: string, e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return 'no such program';
  if (e.code === 'EACCES') {
    let dir = false;
    try { dir = statSync(app).isDirectory(); } catch { /* gone meanwhile: say permission */ }
    return dir ? 'it is a directory, not a program' : 'permission denied (is it executable? chmod +x)';
  }
  if (e.code === 'ENOEXEC') return 'not an executable this machine can run';
  return e.message;
}

/** Resolves when a pipe has delivered its last byte (at once when there is none or it already has). */
function ended(stream: NodeJS.ReadableStream & { readableEnded?: boolean } | null): Promise<void> {
  if (!stream || stream.readableEnded) return Promise.resolve();
  return new Promise((done) => { stream.once('end', () => done()); stream.once('close', () => done()); });
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
export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'a file of that name is in the way'
    : err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied'
    : err.code === 'ENOSPC' ? 'no space left on the device'
    : err.code === 'ENOENT' ? 'its folder does not exist'
    : err.code === 'EISDIR' ? 'it is a directory' : err.message;
}
