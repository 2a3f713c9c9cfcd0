/**
 * The text command language shared by batch mode and the TUI's command line: gdb, rr and
 * cuda-gdb spellings (`next`, `rn`, `reverse-continue`, `cuda thread (1,0,0)`, `info locals`,
 * `goto 1200`, `history x`). Each command returns plain text; errors are text too, never throws.
 */
import {
  backtrace, breakText, functionsText, disassemble, type Dim3, displayLines, type Engine, EngineError, examineText, focusText, historyText, infoCudaBlocks,
  infoCudaKernels, infoRaces, lineText, pointsTable, printText, registersText, requestFailure, type Stop, stopText, threadsTable,
  watchCommand, whatis, consoleState, samePosition, returnValueText, originText, localsText, stopLine,
  assignText, infoTimelineText, timelineCommandTarget,
} from '../../engine/index.js';
import { gotoLaunchCommand, launchesTable, PROGRAM_COMMANDS, setCudaCommand } from './program.js';
import {
  absorbBlockLine, afterStop, bindExecutor, checkCudaCoordinates, cudaQuery, frameSub, infoSub, LANGUAGE_COMMANDS, listCommand,
  substituteVariables, threadSub, userCommand, userHelp, withBreakpointCommands,
} from './language.js';
import { byDesign } from './bydesign.js';

/** A move's result as the language prints it: its reason and the engine's message. */
type Moved = Pick<Stop, 'reason' | 'message'> & { readonly tail?: string };

type Handler = (e: Engine, args: string, name: string) => string | Moved;

interface Cmd {
  names: string[];
  help: string;
  run: Handler;
  moves?: boolean;
}

function dims(text: string): Dim3 {
  const parts = text.replace(/[()\s]/g, '').split(',').filter((x) => x !== '').map(Number);
  if (!parts.length || parts.length > 3 || parts.some((x) => !Number.isInteger(x) || x < 0)) throw new EngineError(`bad coordinates '${text}': expected (x,y,z)`);
  return [parts[0]!, parts[1] ?? 0, parts[2] ?? 0];
}

function num(text: string, what: string): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : Number(t);
  if (!t || !Number.isInteger(n)) throw new EngineError(`${what}: expected a number, got '${text.trim()}'`);
  return n;
}

/**
 * gdb's `start`: a temporary breakpoint on the kernel's first statement (after the prologue), then
 * `run`. A program session, or a kernel without line information, goes back to step 0 as rr's does.
 */
function startCmd(e: Engine): Moved {
  const launches = e.launches();
  if (launches.length !== 1 || launches[0]!.index !== 0) return e.goto(e.start());
  let bp;
  try { bp = e.breakAt(launches[0]!.mangled, true); } catch { return e.goto(e.start()); }
  const st = e.run();
  return { ...st, message: `${breakText(bp, true)}\n${st.message}` };
}

/** `finish` naming the frame it leaves as `bt` does, gdb's `Run till exit from #0  f (a=1) at k.cu:5` (`Run back to call of` backward). */
function finishNaming(e: Engine, direction: 'forward' | 'backward'): Moved {
  const leaving = backtrace(e).split('\n').find((l) => l.startsWith('*'))?.slice(1);
  const moved = e.finish({ direction });
  if (!leaving) return moved;
  return { ...moved, message: moved.message.replace(/^(Run till exit from|Run back to call of) #\d+ .*$/m, `$1 ${leaving}`) };
}

/** `origin EXPR` / `origin ^N`: jump to the step that last wrote the value and show its inputs. */
function originCmd(e: Engine, args: string): Moved {
  if (!args.trim()) throw new EngineError('usage: origin EXPR | origin ^N   (a register $r3, a variable, an lvalue; ^N follows input N of the last answer)');
  const a = e.origin(args, consoleState(e).history);
  return { ...a.stop, message: `${originText(e, a)}\n${a.stop.message}` };
}

function infoCmd(e: Engine, args: string): string {
  const lang = infoSub(e, args);
  if (lang !== undefined) return lang;
  const [what = '', ...rest] = args.trim().split(/\s+/);
  const restText = rest.join(' ');
  switch (what) {
    case 'locals': case 'args': case 'variables': return localsText(e, what);
    case 'registers': case 'reg': case 'r': case 'all-registers': return registersText(e, restText);
    case 'breakpoints': case 'break': case 'b': case 'watchpoints': return withBreakpointCommands(e, pointsTable(e));
    case 'threads': case 'warps': case 'lanes': return threadsTable(e, what);
    case 'frame': case 'f': return backtrace(e);
    case 'display': {
      const ds = consoleState(e).displays;
      // gdb's table: a heading, then `N:   y  EXPR`
      return ds.length ? ['Auto-display expressions now in effect:', 'Num Enb Expression', ...ds.map((d) => `${d.id}:   y  ${d.expr}`)].join('\n') : 'There are no auto-display expressions now.';
    }
    case 'line': return lineText(e);
    case 'functions': case 'function': case 'func': return functionsText(e, restText);
    case 'races': return infoRaces(e);
    case 'timeline': case 'timelines': return infoTimelineText(e);
    case 'cuda': {
      // cuda-gdb's `info cuda threads|warps|lanes|blocks|kernels`
      const sub = rest[0] ?? '';
      if (sub === 'kernels') return infoCudaKernels(e);
      if (sub === 'launches') return launchesTable(e);
      if (sub === 'blocks') return infoCudaBlocks(e);
      if (['threads', 'warps', 'lanes', ''].includes(sub)) return infoCmd(e, sub === 'lanes' ? 'lanes' : 'threads');
      // cuda-gdb's hardware views: the simulation has one device and models no SMs, contexts or barriers as hardware
      const hw = CUDA_HARDWARE.get(sub);
      if (hw) return hw;
      throw new EngineError(`info cuda what? kernels, launches, blocks, threads, warps, lanes`);
    }
    default:
      throw new EngineError(`info what? locals, args, variables, registers, breakpoints, watchpoints, threads, warps, lanes, frame, line, races`);
  }
}

/**
 * cuda-gdb's `cuda device 0`, `cuda sm 0`, `cuda kernel N`, `cuda grid N`: ptxdbg has one device and
 * one SM, and a session's kernel is the launch in focus, so naming that one keeps the focus (shown as
 * cuda-gdb shows it) and any other is refused in one line; undefined when `args` names none of them.
 */
function cudaOnlyOne(e: Engine, args: string): string | undefined {
  const m = /^(device|sm|kernel|grid)\s+(\d+)$/.exec(args);
  if (!m) return undefined;
  const n = Number(m[2]);
  const here = m[1] === 'kernel' ? e.currentLaunch().index : m[1] === 'grid' ? 1 : 0;
  if (n === here) return focusText(e);
  if (m[1] === 'kernel' && e.launches().some((l) => l.index === n)) throw new EngineError(`kernel ${n} is another launch of the program: "launch ${n}" goes to it.`);
  throw new EngineError(`There is no ${m[1]} ${n}: ptxdbg simulates one device with one SM, running ${m[1] === 'grid' ? 'grid 1' : `kernel ${e.currentLaunch().index}`} in this session. CUDA focus unchanged.`);
}

const CUDA_HARDWARE: ReadonlyMap<string, string> = new Map([
  ['devices', 'One device, 0: the GPU ptxdbg simulates (it models no SMs, warp slots or register files of a real device).'],
  ['sms', 'ptxdbg simulates one device without modelling its SMs: "info cuda blocks" and "info cuda warps" show what runs.'],
  ['contexts', 'ptxdbg simulates one device with one context.'],
  ['barriers', 'ptxdbg shows a warp waiting at a barrier as B in "info cuda lanes"; named barriers are not listed by number.'],
  ['managed', 'ptxdbg keeps no separate managed memory: a managed allocation is global memory of the simulated device.'],
  ['clusters', 'ptxdbg does not model thread block clusters.'],
]);

/** `cuda block (1,0,0) thread (3,0,0)`, `cuda thread 5`, `cuda warp 2 lane 3`, bare `cuda thread` shows focus. */
function cudaCmd(e: Engine, args: string): string {
  const t = args.trim();
  const query = cudaQuery(e, t);
  if (query !== undefined) return query;
  checkCudaCoordinates(e, t);
  const only = cudaOnlyOne(e, t);
  if (only !== undefined) return only;
  if (!t || /^(thread|block|warp|lane|kernel)$/.test(t)) {
    const w = e.where();
    return `block (${w.block.join(',')}), thread (${w.thread.join(',')}), warp ${w.warp}, lane ${w.lane}${w.state === 'exited' ? ' (exited)' : ''}`;
  }
  let block: Dim3 | undefined;
  let thread: Dim3 | undefined;
  const b = /block\s*(\([^)]*\)|[\d,\s]+?)(?=\s*(?:thread|warp|lane|$))/.exec(t);
  if (b) block = dims(b[1]!);
  const th = /thread\s*(\([^)]*\)|[\d,\s]+?)(?=\s*(?:block|warp|lane|$))/.exec(t);
  if (th) thread = dims(th[1]!);
  const wm = /warp\s*(\d+)/.exec(t);
  const lm = /lane\s*(\d+)/.exec(t);
  if (wm || lm) thread = e.laneThread(wm ? Number(wm[1]) : undefined, lm ? Number(lm[1]) : undefined);
  if (!block && !thread) throw new EngineError(`usage: cuda block (x,y,z) thread (x,y,z) | cuda thread (x,y,z) | cuda warp N lane M`);
  e.setFocus({ block, thread });
  return focusText(e);
}

// ---- writes and what-if timelines (issue #27) ------------------------------------------------------

/**
 * `set var X = V`, `set variable X = V`, and gdb's shorthand `set X = V` (X not a setting): an
 * assignment, which forks a what-if timeline (the recording itself never changes). The settings
 * of `set` are answered before this (this is its fallback).
 */
function setCommand(e: Engine, args: string): string {
  const t = args.trim();
  const v = /^(?:var|variable)(?:\s+(.*))?$/s.exec(t);
  if (v) {
    if (!v[1]?.trim()) throw new EngineError('Argument required (expression to compute).');
    return assignText(e, v[1], 'set');
  }
  if (!t) throw new EngineError('usage: set var VARIABLE = VALUE (a write: forks a what-if timeline)');
  if (t.includes('=')) return assignText(e, t, 'set');
  throw new EngineError(`Undefined set command: "${t.split(/\s+/)[0]}".  Try "help set".`);
}

/** `timeline original | N`: travel to the original recording or what-if N at this step; bare: `info timeline`. */
function timelineCommand(e: Engine, args: string): string | Moved {
  if (!args.trim()) return infoTimelineText(e);
  // `timeline original 120`: that timeline at step 120 (a goto into it)
  const words = args.trim().split(/\s+/);
  const name = /^what-?if$/i.test(words[0]!) ? words.splice(0, 2).join(' ') : words.shift()!;
  const id = timelineCommandTarget(name);
  if (id === undefined || words.length > 1) throw new EngineError('usage: timeline original [STEP] | timeline N [STEP] (a what-if timeline; see "info timeline")');
  const st = e.selectTimeline(id);
  return words[0] === undefined ? st : e.goto(e.at(num(words[0], 'timeline')));
}

const WRITE_COMMANDS: Cmd[] = [
  { names: ['set'], help: 'set var VARIABLE = VALUE: write a variable, register ($r5), memory ({int} ADDR) at this step; forks a what-if timeline (the recording is kept)', run: (e, a) => (/^\s*cuda\s/.test(a) ? setCudaCommand(e, a) : setCommand(e, a)) },
  { names: ['timeline'], help: 'timeline original | N [STEP]: go to the original recording or what-if timeline N (at this step, or STEP); timeline: list them', moves: true, run: (e, a) => timelineCommand(e, a) },
];

const HELP_ORDER: string[] = [];

/** `up` / `down`: select the caller's (callee's) frame, or say that there is none that way. */
function moveFrame(e: Engine, by: number, none: string): void {
  try {
    e.selectFrame(e.selectedFrame + by);
  } catch (err) {
    if (err instanceof EngineError) throw new EngineError(none, 'out-of-range');
    throw err;
  }
}

/** `race N [2|other|second]`: travel to the first (or second) access of race N. */
function raceCommand(e: Engine, args: string): Moved {
  const [nText = '', which = '1'] = args.trim().split(/\s+/);
  const second = which === '2' || which === 'other' || which === 'second';
  // a program's `race L.N`: race N of launch L (`info races` numbers them so)
  const ln = /^(\d+)\.(\d+)$/.exec(nText);
  return ln ? e.gotoLaunchRace(Number(ln[1]), Number(ln[2]), second) : e.gotoRace(Number(nText), second);
}

/** `next 3`: repeat a movement (stopping early at a breakpoint, watchpoint, exit or the end). */
function repeat(a: string, once: () => Moved): Moved {
  const t = a.trim();
  const n = t ? num(t, 'count') : 1;
  if (n < 1) throw new EngineError(`count must be at least 1`);
  let st = once();
  for (let i = 1; i < n && st.reason === 'step'; i++) st = once();
  return st;
}

const COMMANDS: Cmd[] = [
  { names: ['next', 'n'], help: 'next [N]: the focused thread runs to the next source line (over calls)', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'line', direction: 'forward' })) },
  { names: ['reverse-next', 'rn'], help: 'reverse-next: back to the previous source line (over calls)', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'line', direction: 'backward' })) },
  { names: ['step', 's'], help: 'step: to the next source line, into calls', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'line', direction: 'forward', into: true })) },
  { names: ['reverse-step', 'rs'], help: 'reverse-step: back to the previous source line, into calls', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'line', direction: 'backward', into: true })) },
  { names: ['stepi', 'si'], help: 'stepi [N]: the focused thread\'s next PTX instruction', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'instruction', direction: 'forward', into: true })) },
  { names: ['reverse-stepi', 'rsi'], help: 'reverse-stepi [N]: its previous PTX instruction', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'instruction', direction: 'backward', into: true })) },
  { names: ['nexti', 'ni'], help: 'nexti [N]: next PTX instruction, over calls', moves: true, run: (e, a) => repeat(a, () => e.step({ granularity: 'instruction', direction: 'forward' })) },
  {
    names: ['finish', 'fin'], help: 'finish: run until the current function returns; prints the value it returned', moves: true,
    run: (e) => {
      const st = finishNaming(e, 'forward');
      const shown = returnValueText(e);
      // gdb prints the value after where the call returned to
      return shown ? { ...st, tail: `Value returned is ${shown}` } : st;
    },
  },
  { names: ['reverse-finish', 'rf'], help: 'reverse-finish: back to where the current function was called', moves: true, run: (e) => finishNaming(e, 'backward') },
  {
    names: ['continue', 'c', 'cont'], help: 'continue [N]: to the next breakpoint or watchpoint (or the end); N: pass the breakpoint stopped at N-1 more times', moves: true,
    run: (e, a) => {
      if (a.trim()) {
        const n = num(a, 'continue');
        if (n < 1) throw new EngineError('continue N: N must be at least 1');
        if (e.lastBreakpoint === undefined) throw new EngineError('Not stopped at a breakpoint; "continue N" means: ignore it N-1 more times.');
        e.ignoreBreakpoint(e.lastBreakpoint, n - 1);
      }
      return e.continue({ direction: 'forward' });
    },
  },
  {
    names: ['ignore'], help: 'ignore N COUNT: pass over the next COUNT hits of breakpoint N',
    run: (e, a) => {
      const [id, count] = a.trim().split(/\s+/);
      if (id === undefined || count === undefined) throw new EngineError('usage: ignore N COUNT');
      const n = num(count, 'ignore');
      e.ignoreBreakpoint(num(id, 'ignore'), n);
      return n === 0 ? `Will stop next time breakpoint ${id} is reached.` : `Will ignore next ${n} crossing${n === 1 ? '' : 's'} of breakpoint ${id}.`;
    },
  },
  { names: ['reverse-continue', 'rc'], help: 'reverse-continue: back to the previous breakpoint or watchpoint (or the start)', moves: true, run: (e) => e.continue({ direction: 'backward' }) },
  { names: ['run', 'r'], help: 'run: from the start to the first breakpoint', moves: true, run: (e) => e.run() },
  { names: ['start'], help: "start: run from the start to the kernel's first statement (a temporary breakpoint there, as gdb's start on main)", moves: true, run: startCmd },
  {
    names: ['goto'], help: 'goto STEP | start | end | +N | -N | launch N [step S]: travel to a warp-step of the recording (of launch N)', moves: true,
    run: (e, a) => {
      const t = a.trim();
      const launch = gotoLaunchCommand(e, t);
      if (launch) return launch;
      if (t === 'start' || t === 'begin') return e.goto(e.start());
      if (t === 'end') return e.goto(e.end());
      if (/^[+-]\d+$/.test(t)) return e.goto(e.at(Math.max(0, Math.min(e.total, e.position().step + Number(t)))));
      return e.goto(e.at(num(t, 'goto')));
    },
  },
  {
    names: ['break', 'b', 'tbreak'], help: 'break FILE:LINE | LINE | FUNCTION | ptx:LINE | *INSTR [if threadIdx.x == N && blockIdx.x == M | thread (x,y,z) | block (x,y,z)]',
    run: (e, a, name) => breakText(e.breakAt(a.trim() || `${e.where().file ?? ''}:${e.where().line}`, name === 'tbreak'), name === 'tbreak'),
  },
  {
    names: ['condition'], help: 'condition N [EXPR]: stop at breakpoint N only where EXPR holds (no EXPR: always)',
    run: (e, a) => {
      const m = /^\s*(\S+)\s*(.*)$/s.exec(a);
      if (!m) throw new EngineError('Argument required (breakpoint number).');
      return e.setCondition(num(m[1]!, 'condition'), m[2]!.trim() || undefined);
    },
  },
  { names: ['clear'], help: 'clear [LOCATION]: delete the breakpoints at LOCATION (the current line without one)', run: (e, a) => e.clearAt(a.trim() || `${e.where().file ?? ''}:${e.where().line}`) },
  { names: ['delete', 'd'], help: 'delete [N]: remove breakpoint/watchpoint N (all without N)', run: (e, a) => e.deleteBreakpoint(a.trim() ? num(a, 'delete') : undefined) },
  { names: ['disable'], help: 'disable N', run: (e, a) => { e.enableBreakpoint(num(a, 'disable'), false); return `${a.trim()} disabled.`; } },
  { names: ['enable'], help: 'enable N', run: (e, a) => { e.enableBreakpoint(num(a, 'enable'), true); return `${a.trim()} enabled.`; } },
  { names: ['watch'], help: 'watch EXPR | watch @SPACE ADDR [LEN]: stop when the value in memory changes (both directions)', run: (e, a, name) => watchCommand(e, a, name) },
  { names: ['rwatch'], help: 'rwatch EXPR: stop when it is read', run: (e, a, name) => watchCommand(e, a, name) },
  { names: ['awatch'], help: 'awatch EXPR: stop when it is read or written', run: (e, a, name) => watchCommand(e, a, name) },
  { names: ['print', 'p', 'call', 'inspect'], help: 'print[/x] EXPR: a variable, member, element, register ($r1), special ($tid.x), cast (*(@shared int *)0x10); print/lanes EXPR: all 32 lanes of the warp; print/block EXPR: every thread of the block', run: (e, a) => printText(e, a) },
  { names: ['x'], help: 'x/NFU EXPR: examine memory (F: x d u f t c; U: b h w g)', run: (e, a) => examineText(e, a) },
  { names: ['info', 'i'], help: 'info locals|args|variables|registers|breakpoints|threads|warps|lanes|frame|line|races', run: (e, a) => infoCmd(e, a) },
  { names: ['backtrace', 'bt', 'where'], help: 'backtrace: the focused thread\'s call stack, with argument values', run: (e) => backtrace(e) },
  { names: ['frame', 'f'], help: 'frame N | frame function NAME: select a frame of the call stack', run: (e, a) => { const byName = frameSub(e, a); if (byName !== undefined) return byName; if (a.trim()) e.selectFrame(num(a, 'frame')); return backtrace(e); } },
  { names: ['up'], help: 'up: select the caller\'s frame', run: (e) => { moveFrame(e, +1, 'Initial frame selected; you cannot go up.'); return backtrace(e); } },
  { names: ['down'], help: 'down: select the callee\'s frame', run: (e) => { moveFrame(e, -1, 'Bottom (innermost) frame selected; you cannot go down.'); return backtrace(e); } },
  { names: ['cuda'], help: 'cuda block (x,y,z) thread (x,y,z) | cuda warp N lane M: switch the focused thread', run: (e, a) => cudaCmd(e, a) },
  { names: ['thread'], help: 'thread (x,y,z): focus a thread of the current block; thread apply all|N...|(x,y,z)... CMD', run: (e, a) => threadSub(e, a) ?? (a.trim() ? cudaCmd(e, `thread ${a}`) : cudaCmd(e, '')) },
  { names: ['whatis'], help: 'whatis EXPR: the type of an expression', run: (e, a) => whatis(e, a, false) },
  { names: ['ptype'], help: 'ptype EXPR: the type, with structs spelled out', run: (e, a) => whatis(e, a, true) },
  {
    names: ['display'], help: 'display [EXPR]: show EXPR after every stop (no EXPR: show them now)',
    run: (e, a) => {
      const g = consoleState(e);
      if (!a.trim()) return displayLines(e, g.displays).join('\n') || 'No display expressions.';
      const d = { id: g.nextDisplay++, expr: a.trim() };
      g.displays.push(d);
      return displayLines(e, [d]).join('\n');
    },
  },
  {
    names: ['undisplay'], help: 'undisplay [N]: stop showing display N (all without N)',
    run: (e, a) => {
      const g = consoleState(e);
      if (!a.trim()) { g.displays.length = 0; return 'Deleted all displays.'; }
      const id = num(a, 'undisplay');
      const i = g.displays.findIndex((d) => d.id === id);
      if (i < 0) throw new EngineError(`No display number ${id}.`);
      g.displays.splice(i, 1);
      return `Deleted display ${id}.`;
    },
  },
  { names: ['disassemble', 'disas'], help: 'disassemble [FUNC]: the PTX of the function, the current instruction marked =>', run: (e, a) => disassemble(e, a) },
  {
    names: ['until', 'u', 'advance'], help: 'until: next line, without going back round a loop; until/advance LOCATION: run to LOCATION (or until the current function returns)', moves: true,
    run: (e, a, name) => (a.trim() ? e.runTo(a.trim()) : name === 'advance' ? (() => { throw new EngineError('usage: advance LOCATION'); })() : e.until()),
  },
  { names: ['origin'], help: 'origin EXPR | origin ^N: go to the step that last wrote the value (any thread), show its inputs; ^N follows input N', moves: true, run: (e, a) => originCmd(e, a) },
  { names: ['history'], help: 'history EXPR: every write to a variable/lvalue (or a register: $r3) with step, thread and line', run: (e, a) => historyText(e, a) },
  { names: ['list', 'l'], help: 'list [LINE | FUNC | A,B | - ]: source around the current line, of a function, lines A to B; again: the next lines, -: those before', run: (e, a) => listCommand(e, a) },
  { names: ['stdout', 'kernel-output'], help: 'stdout: the kernel\'s printf output so far (gdb\'s own printf formats values)', run: (e) => e.output() || '(no output yet)' },
  // the gdb language (#27): settings, convenience variables, scripting, rr's checkpoints (language.ts)
  ...LANGUAGE_COMMANDS,
  { names: ['where-am-i', 'status'], help: 'status: step, focused thread, location', run: (e) => stopLine(e) },
  { names: ['race'], help: 'race N [other]: travel to the first (or second) access of race N', moves: true, run: (e, a) => raceCommand(e, a) },
  {
    names: ['help', 'h', '?'], help: 'help [CMD]: this list, or one command',
    run: (_s, a) => {
      const want = a.trim().toLowerCase();
      if (!want) return helpText();
      const c = COMMANDS.find((x) => x.names.includes(want));
      const user = c ? undefined : userHelp(_s, want);
      if (user !== undefined) return user;
      if (!c) throw new EngineError(`Undefined command: "${want}". Try "help".`);
      return `${c.help}${c.names.length > 1 ? `\nAliases: ${c.names.join(', ')}` : ''}`;
    },
  },
  { names: ['quit', 'q', 'exit'], help: 'quit', run: () => '' },
  ...WRITE_COMMANDS,
  // the program timeline (issue #25, src/frontends/gdb/program.ts)
  { ...PROGRAM_COMMANDS[0], names: [...PROGRAM_COMMANDS[0].names], moves: true },
  { ...PROGRAM_COMMANDS[1], names: [...PROGRAM_COMMANDS[1].names] },
];

for (const c of COMMANDS) HELP_ORDER.push(c.names[0]!);

/** Commands whose argument is an expression: convenience variables are replaced in it. */
const EXPRESSION_COMMANDS: ReadonlySet<string> = new Set(['print', 'x', 'whatis', 'ptype', 'display', 'history', 'origin', 'watch', 'rwatch', 'awatch']);

export const COMMAND_NAMES: readonly string[] = COMMANDS.flatMap((c) => c.names).concat(['info locals', 'info args', 'info variables', 'info registers', 'info breakpoints', 'info threads', 'info warps', 'info races', 'info timeline']);

function helpText(): string {
  return ['Commands (gdb / rr / cuda-gdb style; reverse-* travel back in the recording):', ...COMMANDS.map((c) => `  ${c.names.join(', ').padEnd(30)} ${c.help}`)].join('\n');
}

/**
 * Run one command line. `repeatOnEmpty` (interactive consoles): an empty line repeats the last
 * stepping command, as gdb does at its prompt; scripts and batch input do not repeat.
 */
export function executeCommand(e: Engine, line: string, opts: { repeatOnEmpty?: boolean } = {}): { output: string; moved: boolean; quit: boolean; error: boolean } {
  const g = consoleState(e);
  const inBlock = absorbBlockLine(e, line);
  if (inBlock) return inBlock;
  let text = line.trim();
  if (!text && opts.repeatOnEmpty && g.repeat) text = g.repeat;
  if (!text || text.startsWith('#')) return { output: '', moved: false, quit: false, error: false };
  const m = /^([a-zA-Z?!-]+)(\/\S*)?\s*(.*)$/s.exec(text);
  const name = m ? m[1]!.toLowerCase() : text;
  const cmd = COMMANDS.find((c) => c.names.includes(name));
  const user = cmd ? undefined : userCommand(e, name, m?.[3] ?? '');
  if (user) return user;
  const reason = byDesign(name, m?.[3] ?? '');
  if (reason !== undefined) return { output: reason, moved: false, quit: false, error: true };
  if (!cmd) {
    const near = COMMANDS.flatMap((c) => c.names).filter((n) => n.startsWith(name));
    return { output: `Undefined command: "${name}".${near.length ? ` Did you mean ${near.slice(0, 4).join(', ')}?` : ''} Try "help".`, moved: false, quit: false, error: true };
  }
  const rawArgs = (m?.[2] ?? '') + (m?.[2] ? ' ' : '') + (m?.[3] ?? '');
  // convenience variables ($i, $_lane) read in the expressions of these commands
  const args = EXPRESSION_COMMANDS.has(cmd.names[0]!) ? substituteVariables(e, rawArgs) : rawArgs;
  if (cmd.names[0] === 'quit') return { output: '', moved: false, quit: true, error: false };
  const before = e.position();
  try {
    const r = cmd.run(e, args, name);
    if (cmd.moves) g.repeat = text;
    if (typeof r === 'string') return { output: r, moved: !samePosition(e.position(), before), quit: false, error: false };
    const shown = displayLines(e, g.displays);
    const stopped = [stopText(e, r), ...(r.tail ? [r.tail] : []), ...shown].join('\n');
    // a breakpoint's `commands` run after its stop is shown (`silent` hides the stop)
    const after = r.reason === 'breakpoint' ? afterStop(e, e.lastBreakpoint, stopped) : { text: '', silent: false };
    return { output: [after.silent ? '' : stopped, after.text].filter(Boolean).join('\n'), moved: true, quit: false, error: false };
  } catch (err) {
    const message = requestFailure(err);
    if (message === undefined) throw err;
    // an engine error may leave the position moved (a search that ran into the end); a damaged trace or a bound does not
    return { output: message, moved: err instanceof EngineError && !samePosition(e.position(), before), quit: false, error: true };
  }
}

bindExecutor((e, line) => executeCommand(e, line));
