/**
 * The Debug Adapter Protocol front end (`ptxdbg dap`): VS Code (or any DAP client) on the typed
 * engine. The whole launch is recorded at `launch`; every request after that moves or reads the
 * recording, so stepping back, reverse-continue and goto are as cheap as going forward.
 *
 * Mapping: DAP threads are the CUDA threads of the focused warp (`block (x,y,z) thread (x,y,z)`);
 * frames are the focused thread's call stack; scopes are its variables by address space plus its
 * PTX registers; instruction addresses are the program's global instruction indices (hex);
 * memory references are `space:0xaddress`. Faults and races stop as exceptions, printf output
 * arrives as output events (once, the first time execution passes it).
 *
 * A whole CUDA program (`"program": "./app"`, with `args`, `cwd`, `env`) runs once under the
 * recorder at `launch` (the CLI hands in how: `ProgramOpener`), and the session is the whole
 * program: continue, step and their reverse forms cross launch boundaries, the top frame names
 * its launch (`scale(const int *, int *, int) [launch 2]`); output and pending breakpoints: program.ts.
 */
import { basename, resolve } from 'node:path';
import {
  Breakpoint, BreakpointEvent, DebugSession, InitializedEvent, OutputEvent, Scope as DapScope, Source, StackFrame, StoppedEvent, Thread,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  type CommandConsole, compileCuda, type Engine, EngineError, type EngineOptions, type FrameInfo, launchFileBeside, openEngine, openReplayEngine,
  type Position, samePosition, type StopEvent, type WatchKind,
} from '../../engine/index.js';
import { hostStackTrace, isProgram, ProgramFeed, type ProgramOpener } from './program.js';
import { userFrames } from './frames.js';

export type { ProgramOpener, ProgramRun } from './program.js';

/** `launch` arguments (see the extension's package.json for their documentation). */
export interface LaunchArguments extends DebugProtocol.LaunchRequestArguments {
  /** A .ptx file, a .cu file (compiled with nvcc -G) or a .ptxtrace recording. */
  program: string;
  launch?: string;
  kernel?: string;
  grid?: string;
  block?: string;
  shared?: number;
  args?: string[];
  schedule?: 'rr' | 'random';
  seed?: number;
  maxSteps?: number;
  sourceDir?: string;
  arch?: string;
  /** Stop at step 0 (default) rather than run to the first breakpoint. */
  stopOnEntry?: boolean;
  /** For a whole CUDA program: its working directory and added environment. */
  cwd?: string;
  env?: Record<string, string>;
  /** For a whole CUDA program: record only these kernels' launches (`--record K1,K2`). */
  record?: string[];
}

const FAULTS = 'faults';
const RACES = 'races';

export class PtxDebugSession extends DebugSession {
  private engine: Engine | undefined;
  /** Frame ids handed out since the last stop: thread id and level. */
  private frames = new Map<number, { thread: number; level: number }>();
  private nextFrame = 1;
  private stopOnFaults = true;
  private stopOnRaces = false;
  /** printf output already sent (the furthest point execution has passed). */
  private outputSent = 0;
  private lastStop: StopEvent | undefined;
  private stopOnEntry = true;
  /** The positions of the last gotoTargets answer (target id N is the N-th). */
  private targets: readonly Position[] = [];

  /** In a whole program: the output sent so far and the pending breakpoints (program.ts). */
  private feed = new ProgramFeed();

  /**
   * `consoleFor`: the command language of the Debug Console's `-exec` lines (the gdb language,
   * handed in by the caller); `openProgram`: how a whole CUDA program is run and recorded.
   */
  constructor(private readonly consoleFor?: (e: Engine) => CommandConsole, private readonly openProgram?: ProgramOpener) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  private get e(): Engine {
    if (!this.engine) throw new EngineError('no program launched yet', 'bad-request');
    return this.engine;
  }

  /** Run a request handler; an engine error becomes an error response, never a crash. */
  private guard(response: DebugProtocol.Response, f: () => void): void {
    try {
      f();
    } catch (err) {
      const code = err instanceof EngineError ? err.code : 'internal';
      const message = err instanceof Error ? err.message : String(err);
      this.sendErrorResponse(response, { id: 1000, format: message.replace(/[{}]/g, ''), showUser: true, variables: { code } });
    }
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsStepBack: true,
      supportsGotoTargetsRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsFunctionBreakpoints: true,
      supportsDataBreakpoints: true,
      supportsInstructionBreakpoints: true,
      supportsDisassembleRequest: true,
      supportsReadMemoryRequest: true,
      supportsSteppingGranularity: true,
      supportsEvaluateForHovers: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      supportsSetVariable: true,
      supportsSetExpression: true,
      exceptionBreakpointFilters: [
        { filter: FAULTS, label: 'Faults (trap, bad address, assert, deadlock)', default: true },
        { filter: RACES, label: 'Data races (stop at the first access of each race)', default: false },
      ],
    };
    this.sendResponse(response);
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: LaunchArguments): void {
    const given = typeof args.program === 'string' ? args.program : '';
    // a program to run is found from its working directory, as a shell would start it there
    const app = given && typeof args.cwd === 'string' ? resolve(args.cwd, given) : resolve(given);
    if (given && !/\.(ptx|cu|ptxtrace)$/.test(given) && isProgram(app)) { void this.launchProgram(response, app, args); return; }
    const program = given ? resolve(given) : '';
    this.guard(response, () => {
      if (!program) throw new EngineError('launch: "program" (a .ptx, .cu or .ptxtrace file, or a CUDA program) is required', 'bad-request');
      if (program.endsWith('.ptxtrace')) {
        const r = openReplayEngine(program);
        if ('error' in r) throw new EngineError(r.error, 'read-failed');
        this.engine = r.engine;
      } else {
        let ptx = program;
        let launch = args.launch;
        if (program.endsWith('.cu')) {
          ptx = compileCuda(program, args.arch ?? 'sm_80');
          if (!launch && !args.grid && !args.block && !args.args?.length) launch = launchFileBeside(program);
        }
        const o: EngineOptions = {
          ptxPath: ptx, launch, kernel: args.kernel, grid: args.grid, block: args.block, shared: args.shared, arg: args.args,
          schedule: args.schedule, seed: args.seed, maxSteps: args.maxSteps,
        };
        this.engine = openEngine(o);
      }
      if (args.sourceDir) this.engine.setSourceDir(args.sourceDir);
      this.stopOnEntry = args.stopOnEntry ?? true;
      this.sendResponse(response);
      this.sendEvent(new OutputEvent(`ptxdbg: recorded ${this.engine.total} warp-steps${this.engine.faultMessage ? ' (the run ends with a fault)' : ''}\n`, 'console'));
      this.sendEvent(new InitializedEvent());
    });
  }

  /** `launch` on a whole CUDA program: run it once under the recorder, then debug every launch. */
  private async launchProgram(response: DebugProtocol.LaunchResponse, program: string, args: LaunchArguments): Promise<void> {
    try {
      if (!this.openProgram) throw new EngineError(`launch: ${program} is a CUDA program, and this adapter cannot run programs`, 'bad-launch');
      if (args.args !== undefined && (!Array.isArray(args.args) || args.args.some((a) => typeof a !== 'string'))) throw new EngineError('launch: "args" must be an array of strings', 'bad-request');
      if (args.env !== undefined && (typeof args.env !== 'object' || args.env === null || Object.values(args.env).some((v) => typeof v !== 'string'))) throw new EngineError('launch: "env" must map names to strings', 'bad-request');
      this.engine = await this.openProgram({
        program, args: args.args ?? [], cwd: args.cwd, env: args.env, record: args.record, schedule: args.schedule, seed: args.seed, maxSteps: args.maxSteps,
        say: (line) => this.sendEvent(new OutputEvent(`${line}\n`, 'console')),
      });
      if (args.sourceDir) this.engine.setSourceDir(args.sourceDir);
      this.stopOnEntry = args.stopOnEntry ?? true;
      this.feed = new ProgramFeed();
      this.sendResponse(response);
      const n = this.engine.launches();
      const code = this.engine.exitCode;
      this.sendEvent(new OutputEvent(`ptxdbg: recorded ${basename(program)}: ${n.length} launch${n.length === 1 ? '' : 'es'}, ${n.filter((l) => l.steps !== undefined).length} recorded${code === undefined ? '' : `; the program exited with code ${code}`}\n`, 'console'));
      this.sendEvent(new InitializedEvent());
    } catch (err) {
      const code = err instanceof EngineError ? err.code : 'internal';
      const message = err instanceof Error ? err.message : String(err);
      this.sendErrorResponse(response, { id: 1000, format: message.replace(/[{}]/g, ''), showUser: true, variables: { code } });
    }
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.guard(response, () => {
      this.sendResponse(response);
      if (this.stopOnEntry) this.report(this.e.goto(this.e.start()), 'entry');
      else this.report(this.moveContinue('forward', true));
    });
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    if (this.engine) this.feed.flush(this.engine, (text, stream) => this.sendEvent(new OutputEvent(text, stream)));
    this.sendResponse(response);
    this.shutdown();
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    if (this.engine) this.feed.flush(this.engine, (text, stream) => this.sendEvent(new OutputEvent(text, stream)));
    this.sendResponse(response);
    this.shutdown();
  }

  // ---- stops ----------------------------------------------------------------------------------

  /** Send the stopped event for a move, and any printf output execution passed for the first time. */
  private report(s: StopEvent, reasonOverride?: string): void {
    this.frames.clear();
    this.lastStop = s;
    this.sendOutput();
    for (const b of this.feed.resolved(this.e)) this.sendEvent(new BreakpointEvent('changed', b));
    let reason: string = reasonOverride ?? 'step';
    let text: string | undefined;
    if (!reasonOverride) {
      switch (s.hit?.kind) {
        // gdb's stop at a condition that could not be evaluated: the reason in the stop's text
        case 'breakpoint': reason = 'breakpoint'; if (s.hit.conditionError !== undefined) text = `Error in testing condition for breakpoint ${s.hit.id}: ${s.hit.conditionError}`; break;
        case 'watchpoint': reason = 'data breakpoint'; break;
        case 'race': reason = 'exception'; text = s.message; break;
        case 'fault': reason = 'exception'; text = s.hit.message; break;
        default:
          if (s.reason === 'goto') reason = 'goto';
          else if (s.reason === 'end' || s.reason === 'start') { reason = 'pause'; text = s.message; }
      }
    }
    const ev = new StoppedEvent(reason, s.thread.id, text) as DebugProtocol.StoppedEvent;
    ev.body.allThreadsStopped = true;
    if (s.message && reason !== 'step') ev.body.description = s.hit?.kind === 'breakpoint' && text !== undefined ? text : s.message.split('\n')[0];
    if (s.hit?.kind === 'breakpoint' && text !== undefined) this.sendEvent(new OutputEvent(text + '\n', 'console'));
    if (s.hit?.kind === 'breakpoint') ev.body.hitBreakpointIds = [s.hit.id];
    this.sendEvent(ev);
    if (s.message && (s.reason === 'no-move' || s.reason === 'exited' || s.reason === 'end' || s.reason === 'start')) this.sendEvent(new OutputEvent(s.message + '\n', 'console'));
  }

  /**
   * Output execution passed for the first time: a kernel's printf; in a whole program, the
   * program's stdout/stderr and every launch's printf up to the current position, in order.
   */
  private sendOutput(): void {
    const e = this.e;
    if (!e.isProgram) {
      const out = e.output();
      if (out.length > this.outputSent) {
        this.sendEvent(new OutputEvent(out.slice(this.outputSent), 'stdout'));
        this.outputSent = out.length;
      }
      return;
    }
    this.feed.outputPassed(e, (text, stream) => this.sendEvent(new OutputEvent(text, stream)));
  }

  /** continue / reverse-continue (or run from the start): stopping at race accesses on the way when race stops are on. */
  private moveContinue(direction: 'forward' | 'backward', fromStart = false): StopEvent {
    return fromStart ? this.e.run({ races: this.stopOnRaces }) : this.e.continue({ direction, races: this.stopOnRaces });
  }

  private focusThread(threadId: number | undefined): void {
    if (threadId !== undefined && threadId !== this.e.focus().id) this.e.setFocus(threadId);
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    this.guard(response, () => {
      this.focusThread(args.threadId);
      response.body = { allThreadsContinued: true };
      this.sendResponse(response);
      this.report(this.moveContinue('forward'));
    });
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse, args: DebugProtocol.ReverseContinueArguments): void {
    this.guard(response, () => {
      this.focusThread(args.threadId);
      this.sendResponse(response);
      this.report(this.moveContinue('backward'));
    });
  }

  private stepRequest(response: DebugProtocol.Response, threadId: number, granularity: DebugProtocol.SteppingGranularity | undefined, move: (g: 'line' | 'instruction') => StopEvent): void {
    this.guard(response, () => {
      this.focusThread(threadId);
      this.sendResponse(response);
      this.report(move(granularity === 'instruction' ? 'instruction' : 'line'));
    });
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.stepRequest(response, args.threadId, args.granularity, (g) => this.e.step({ granularity: g, direction: 'forward' }));
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.stepRequest(response, args.threadId, args.granularity, (g) => this.e.step({ granularity: g, direction: 'forward', into: true }));
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.stepRequest(response, args.threadId, args.granularity, () => this.e.finish({ direction: 'forward' }));
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: DebugProtocol.StepBackArguments): void {
    this.stepRequest(response, args.threadId, args.granularity, (g) => this.e.step({ granularity: g, direction: 'backward' }));
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    // Nothing runs between requests: every move is over when its response is sent.
    this.sendResponse(response);
  }

  protected override gotoTargetsRequest(response: DebugProtocol.GotoTargetsResponse, args: DebugProtocol.GotoTargetsArguments): void {
    this.guard(response, () => {
      const file = args.source.path ?? args.source.name ?? '';
      const at = this.e.linePositions(this.isPtx(file) ? this.e.ptxPath : file, args.line);
      this.targets = at;
      response.body = { targets: at.map((p, i) => ({ id: i + 1, label: `step ${p.step}${i === 0 ? ' (first time the thread is here)' : ''}`, line: args.line })) };
      this.sendResponse(response);
    });
  }

  protected override gotoRequest(response: DebugProtocol.GotoResponse, args: DebugProtocol.GotoArguments): void {
    this.guard(response, () => {
      const to = this.targets[args.targetId - 1];
      if (!to) throw new EngineError(`no goto target ${args.targetId}: ask for targets first`, 'out-of-range');
      const stop = this.e.goto(to);
      this.sendResponse(response);
      this.report(stop, 'goto');
    });
  }

  // ---- threads, frames, variables ---------------------------------------------------------------

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    this.guard(response, () => {
      response.body = { threads: this.e.threads().map((t) => new Thread(t.id, t.name)) };
      this.sendResponse(response);
    });
  }

  private isPtx(file: string): boolean {
    return file.endsWith('.ptx') || resolve(file) === resolve(this.e.ptxPath);
  }

  private ptxSource(): Source {
    const p = this.e.ptxPath;
    return new Source(basename(p), resolve(p));
  }

  /** A frame's source and line: the CUDA file when it can be found, else the PTX line. */
  private frameLocation(f: FrameInfo): { source: Source; line: number } {
    const found = f.file !== undefined && f.line > 0 ? this.e.sourceFile(f.file) : undefined;
    if (found) return { source: new Source(basename(found.path), found.path), line: f.line };
    const ins = this.e.instruction(this.e.address(f.function, f.pc));
    return { source: this.ptxSource(), line: ins?.ptxLine ?? 0 };
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    this.guard(response, () => {
      this.focusThread(args.threadId);
      const host = hostStackTrace(this.e, () => { const id = this.nextFrame++; this.frames.set(id, { thread: args.threadId, level: 0 }); return id; });
      const all = host ? [] : userFrames(this.e.stack(), this.lastStop?.hit?.kind === 'fault'); // host call: its one frame
      const start = args.startFrame ?? 0;
      const shown = all.slice(start, args.levels ? start + args.levels : undefined);
      const launch = this.e.isProgram ? this.e.currentLaunch() : undefined;
      const frames = shown.map((f) => {
        const id = this.nextFrame++;
        this.frames.set(id, { thread: args.threadId, level: f.level });
        const loc = this.frameLocation(f);
        // named as C++ debuggers do (`axpy(float, float, float)`); a program's top frame adds `[launch 2]`
        const shown = this.e.functionDisplayName(f.function);
        const name = f.level === 0 && launch ? `${shown} [launch ${launch.index}]` : shown;
        const sf = new StackFrame(id, name, loc.source, loc.line, 1) as DebugProtocol.StackFrame;
        sf.instructionPointerReference = `0x${this.e.address(f.function, f.pc).toString(16)}`;
        return sf;
      });
      response.body = host ?? { stackFrames: frames, totalFrames: all.length };
      this.sendResponse(response);
    });
  }

  /** Select the thread and frame a frame id names. */
  private frameOf(frameId: number | undefined): number | undefined {
    if (frameId === undefined) return undefined;
    const f = this.frames.get(frameId);
    if (!f) throw new EngineError(`unknown frame ${frameId} (frames last until the next stop)`, 'out-of-range');
    this.focusThread(f.thread);
    return f.level;
  }

  /**
   * Custom request `origin` {expression}: where the value came from (the engine's dataflow
   * origin); moves to the writing step (a `stopped` event follows) and answers its instruction and
   * inputs; `^N` in the expression follows input N of the previous answer.
   */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command !== 'origin') { super.customRequest(command, response, args); return; }
    this.guard(response, () => {
      const expr = typeof args === 'object' && args !== null && typeof (args as { expression?: unknown }).expression === 'string' ? (args as { expression: string }).expression : '';
      const a = this.e.origin(expr);
      const hop = a.hop;
      response.body = {
        step: hop?.step, function: hop?.function, pc: hop?.pc, what: a.what, by: a.by,
        thread: a.stop.thread, line: a.stop.frame?.line,
        inputs: (hop?.inputs ?? []).map((x, i) => ({ follow: `^${i + 1}`, text: x.text, bits: x.bits?.toString(), bytes: x.bytes ? Array.from(x.bytes) : undefined, followable: x.follow !== undefined })),
      };
      this.sendResponse(response);
      this.report(a.stop, 'step');
    });
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    this.guard(response, () => {
      const level = this.frameOf(args.frameId) ?? 0;
      response.body = {
        scopes: this.e.scopes(level).map((s) => {
          const d = new DapScope(s.name, s.containerId, false) as DebugProtocol.Scope;
          d.namedVariables = s.count;
          d.presentationHint = s.hint;
          return d;
        }),
      };
      this.sendResponse(response);
    });
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    this.guard(response, () => {
      let vars = this.e.variables(args.variablesReference);
      if (args.start !== undefined || args.count) vars = vars.slice(args.start ?? 0, args.count ? (args.start ?? 0) + args.count : undefined);
      response.body = {
        variables: vars.map((v) => ({
          name: v.name, value: v.value, type: v.type, variablesReference: v.containerId,
          ...(v.expression !== undefined ? { evaluateName: v.expression } : {}),
          ...(v.memoryReference !== undefined ? { memoryReference: v.memoryReference } : {}),
        })),
      };
      this.sendResponse(response);
    });
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    this.guard(response, () => {
      const level = this.frameOf(args.frameId);
      // the Debug Console also takes the gdb language: `-exec info races`, `-exec history y[3]`
      const cmd = /^\s*(?:-exec\s+|`)(.*)$/s.exec(args.expression);
      if (args.context === 'repl' && cmd) {
        const before = this.e.position();
        const timeline = this.e.timeline(); // a write (-exec set var x = 1) moves into a what-if timeline
        if (!this.consoleFor) throw new EngineError('this adapter has no command console', 'bad-request');
        const r = this.consoleFor(this.e).execute(cmd[1]!);
        if (r.error) throw new EngineError(r.output, 'bad-request');
        response.body = { result: r.output, variablesReference: 0 };
        this.sendResponse(response);
        const now = this.e.timeline();
        const switched = now.id !== timeline.id || now.writes.length !== timeline.writes.length;
        if (r.moved || switched || !samePosition(this.e.position(), before)) this.report(this.e.goto(this.e.position()), 'goto');
        return;
      }
      const v = this.e.evaluate(args.expression, level);
      response.body = { result: v.value, type: v.type, variablesReference: 0, ...(v.memoryReference ? { memoryReference: v.memoryReference } : {}) };
      this.sendResponse(response);
    });
  }

  // ---- writes (issue #27): a write forks a what-if timeline; the recording itself is kept ----------

  /** After a write: say which timeline the session is now in, and have the client re-read everything (containers were renewed). */
  private reportWrite(): void {
    const t = this.e.timeline();
    this.sendEvent(new OutputEvent(`[${t.name}] ${t.writes.at(-1)?.text ?? ''} written at step ${this.e.position().step}; the launch re-ran with ${t.writes.length === 1 ? 'it' : `its ${t.writes.length} writes`} (the original recording is kept: -exec timeline original)\n`, 'console'));
    this.report(this.e.goto(this.e.position()), 'goto');
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    this.guard(response, () => {
      const v = this.e.setVariable(args.variablesReference, args.name, args.value);
      response.body = { value: v.value, type: v.type, variablesReference: 0 };
      this.sendResponse(response);
      this.reportWrite();
    });
  }

  protected override setExpressionRequest(response: DebugProtocol.SetExpressionResponse, args: DebugProtocol.SetExpressionArguments): void {
    this.guard(response, () => {
      const v = this.e.setExpression(args.expression, args.value, this.frameOf(args.frameId));
      response.body = { value: v.value, type: v.type, variablesReference: 0 };
      this.sendResponse(response);
      this.reportWrite();
    });
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse): void {
    this.guard(response, () => {
      const s = this.lastStop;
      const isRace = s?.hit?.kind === 'race';
      const text = s?.hit?.kind === 'fault' ? s.hit.message : s?.message ?? '';
      response.body = { exceptionId: isRace ? 'race' : 'fault', description: text.split('\n')[0] ?? '', breakMode: 'always', details: { message: text } };
      this.sendResponse(response);
    });
  }

  protected override readMemoryRequest(response: DebugProtocol.ReadMemoryResponse, args: DebugProtocol.ReadMemoryArguments): void {
    this.guard(response, () => {
      const r = this.e.readMemory(args.memoryReference, args.offset ?? 0, args.count);
      response.body = { address: r.address, data: Buffer.from(r.bytes).toString('base64'), ...(r.unreadable ? { unreadableBytes: r.unreadable } : {}) };
      this.sendResponse(response);
    });
  }

  protected override disassembleRequest(response: DebugProtocol.DisassembleResponse, args: DebugProtocol.DisassembleArguments): void {
    this.guard(response, () => {
      const base = Number(args.memoryReference) + (args.offset ?? 0) + (args.instructionOffset ?? 0);
      if (!Number.isFinite(base)) throw new EngineError(`bad instruction reference '${args.memoryReference}'`, 'bad-request');
      const src = this.ptxSource();
      const out: DebugProtocol.DisassembledInstruction[] = [];
      for (let i = 0; i < args.instructionCount; i++) {
        const a = base + i;
        const ins = this.e.instruction(a);
        if (!ins) { out.push({ address: `0x${Math.max(0, a).toString(16)}`, instruction: '', presentationHint: 'invalid' }); continue; }
        out.push({ address: `0x${a.toString(16)}`, instruction: ins.text, symbol: ins.pc === 0 ? ins.function : undefined, location: src, line: ins.ptxLine } as DebugProtocol.DisassembledInstruction);
      }
      response.body = { instructions: out };
      this.sendResponse(response);
    });
  }

  // ---- breakpoints ------------------------------------------------------------------------------

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    this.guard(response, () => {
      const path = args.source.path ?? args.source.name ?? '';
      const file = this.isPtx(path) ? resolve(this.e.ptxPath) : basename(path);
      const rs = this.e.setBreakpoints(this.isPtx(path) ? this.e.ptxPath : file, (args.breakpoints ?? []).map((b) => ({ line: b.line, condition: b.condition, hitCondition: b.hitCondition })));
      this.feed.notePending(this.e, rs, (i) => (this.isPtx(path) ? args.breakpoints?.[i]?.line : undefined));
      response.body = { breakpoints: rs.map((r, i) => this.breakpoint(r, args.breakpoints?.[i]?.line)) };
      this.sendResponse(response);
    });
  }

  private breakpoint(r: { verified: boolean; id: number | undefined; line: number | undefined; message: string | undefined }, line?: number): DebugProtocol.Breakpoint {
    const b = new Breakpoint(r.verified, r.line ?? line) as DebugProtocol.Breakpoint;
    if (r.id !== undefined) b.id = r.id;
    if (r.message) b.message = r.message;
    return b;
  }

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    this.guard(response, () => {
      const rs = this.e.setFunctionBreakpoints(args.breakpoints.map((b) => ({ name: b.name, condition: b.condition, hitCondition: b.hitCondition })));
      this.feed.notePending(this.e, rs, () => undefined);
      response.body = { breakpoints: rs.map((r) => this.breakpoint(r)) };
      this.sendResponse(response);
    });
  }

  protected override setInstructionBreakpointsRequest(response: DebugProtocol.SetInstructionBreakpointsResponse, args: DebugProtocol.SetInstructionBreakpointsArguments): void {
    this.guard(response, () => {
      const rs = this.e.setInstructionBreakpoints(args.breakpoints.map((b) => ({ address: Number(b.instructionReference) + (b.offset ?? 0), condition: b.condition, hitCondition: b.hitCondition })));
      this.feed.notePending(this.e, rs, (i) => rs[i]?.line);
      response.body = { breakpoints: rs.map((r) => this.breakpoint(r)) };
      this.sendResponse(response);
    });
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    this.stopOnFaults = args.filters.includes(FAULTS);
    this.stopOnRaces = args.filters.includes(RACES);
    this.sendResponse(response);
  }

  protected override dataBreakpointInfoRequest(response: DebugProtocol.DataBreakpointInfoResponse, args: DebugProtocol.DataBreakpointInfoArguments): void {
    this.guard(response, () => {
      let expr: string | undefined = args.name;
      if (args.variablesReference) expr = this.e.variables(args.variablesReference).find((v) => v.name === args.name)?.expression;
      const v = expr === undefined ? undefined : this.e.evaluate(expr, this.frameOf(args.frameId));
      if (expr === undefined || !v?.lvalue) {
        response.body = { dataId: null, description: `${args.name} is not in global, shared or local memory` };
      } else {
        response.body = { dataId: expr, description: `${expr} (${v.lvalue.space} 0x${v.lvalue.address.toString(16)}, ${v.lvalue.size} bytes)`, accessTypes: ['write', 'read', 'readWrite'], canPersist: false };
      }
      this.sendResponse(response);
    });
  }

  protected override setDataBreakpointsRequest(response: DebugProtocol.SetDataBreakpointsResponse, args: DebugProtocol.SetDataBreakpointsArguments): void {
    this.guard(response, () => {
      const kind = (t: DebugProtocol.DataBreakpointAccessType | undefined): WatchKind => (t === 'read' ? 'read' : t === 'readWrite' ? 'access' : 'write');
      const rs = this.e.setWatchpoints(args.breakpoints.map((b) => ({ expression: b.dataId, kind: kind(b.accessType) })));
      response.body = { breakpoints: rs.map((r) => this.breakpoint({ ...r, line: undefined })) };
      this.sendResponse(response);
    });
  }

  /** Faults always end the recording; with the filter off, the end is reported as a pause. */
  override sendEvent(event: DebugProtocol.Event): void {
    if (event.event === 'stopped' && !this.stopOnFaults) {
      const body = (event as DebugProtocol.StoppedEvent).body;
      if (body.reason === 'exception' && this.lastStop?.hit?.kind === 'fault') body.reason = 'pause';
    }
    super.sendEvent(event);
  }
}
