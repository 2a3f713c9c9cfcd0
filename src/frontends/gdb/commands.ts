/**
 * The text command language shared by batch mode and the TUI's command line: gdb, rr and
 * cuda-gdb spellings (`next`, `rn`, `reverse-continue`, `cuda thread (1,0,0)`, `info locals`,
 * `goto 1200`, `history x`). Each command returns plain text; errors are text too, never throws.
 */
import { DebugInfo, evaluateExpression, infoArgs, infoLocals, infoVariables, PrintError, printExpression, printReturnValue, ValueHistory } from '../../engine/print/index.js';
import { Access } from '../../exec/probe.js';
import { coordsOf, linearOf } from '../../exec/launch.js';
import { TraceError } from '../../trace/trace.js';
import type { Session } from '../../engine/session.js';
import { SessionError } from '../../engine/session.js';
import type { BreakpointInfo, Dim3, Stop, WatchKind } from '../../engine/types.js';
import { type AddedWatch, engineOf } from '../../engine/api.js';
import { LineMap } from '../../ptx/diagnostics.js';
import { raceCommand, infoRaces } from './races.js';
import type { LaneValue, OriginAnswer } from '../../engine/api.js';
import { intValue } from '../../engine/print/arith.js';
import { T } from '../../engine/print/ctypes.js';
import { backtrace, disassemble, type Display, displayLines, examineInstructions, examineString, infoCudaBlocks, infoCudaKernels, type InspectContext, listRange, whatis } from './inspect.js';
import { baseName } from '../../engine/sources.js';
import { formatterFor, registerFloat } from '../../engine/values.js';

/** A move's result as the language prints it: its reason and the engine's message. */
type Moved = Pick<Stop, 'reason' | 'message'>;

type Handler = (s: Session, args: string, name: string) => string | Moved;

interface Cmd {
  names: string[];
  help: string;
  run: Handler;
  moves?: boolean;
}

function debugInfo(s: Session): DebugInfo {
  return s.debugInfo();
}

function ctx(s: Session): InspectContext {
  return { info: debugInfo(s), history: history(s) };
}

/** Per-session command-language state: display list and the command an empty line repeats. */
interface GdbState { displays: Display[]; nextDisplay: number; repeat: string | undefined }
const gdbState = new WeakMap<Session, GdbState>();
function state(s: Session): GdbState {
  let g = gdbState.get(s);
  if (!g) gdbState.set(s, (g = { displays: [], nextDisplay: 1, repeat: undefined }));
  return g;
}

/** The `$1, $2...` value history of each session's console. */
const histories = new WeakMap<Session, ValueHistory>();

function history(s: Session): ValueHistory {
  let h = histories.get(s);
  if (!h) { h = new ValueHistory(); histories.set(s, h); }
  return h;
}

function dims(text: string): Dim3 {
  const parts = text.replace(/[()\s]/g, '').split(',').filter((x) => x !== '').map(Number);
  if (!parts.length || parts.length > 3 || parts.some((x) => !Number.isInteger(x) || x < 0)) throw new SessionError(`bad coordinates '${text}': expected (x,y,z)`);
  return [parts[0]!, parts[1] ?? 0, parts[2] ?? 0];
}

/** The one-line "where we are" gdb prints after a stop: `12\t  y[i] = a * x[i] + y[i];`. */
export function stopLine(s: Session): string {
  const w = s.where();
  let lanes = 0;
  for (let m = w.activeMask; m !== 0; m &= m - 1) lanes++;
  const head = `[step ${w.step}/${w.total}] block (${w.block.join(',')}) thread (${w.thread.join(',')}) warp ${w.warp} lane ${w.lane}` +
    (w.state === 'active' || w.state === 'inactive' ? `, ${lanes} lane${lanes === 1 ? '' : 's'} active, pc ${w.pc}` : '');
  if (w.state === 'exited' || w.state === 'retired') return `${head}: exited`;
  if (w.state === 'not-started') return `${head}: block not started yet`;
  const src = sourceLine(s, w.file, w.line);
  const loc = w.file ? `${w.function} at ${baseName(w.file)}:${w.line}` : `${w.function} pc ${w.pc}`;
  const state = w.state === 'active' ? '' : ` (${w.state === 'inactive' ? 'inactive: waiting at a divergent branch' : 'waiting at a barrier'})`;
  return `${head}${state}\n${loc}\n${src !== undefined ? `${w.line}\t${src}` : `   ${w.pc}: ${w.ptx}`}`;
}

export function sourceLine(s: Session, file: string | undefined, line: number): string | undefined {
  return sourceLines(s, file)?.[line - 1];
}

export function sourceLines(s: Session, file: string | undefined): readonly string[] | undefined {
  return file === undefined ? undefined : s.sources.get(file)?.lines;
}

/** The text gdb prints for a stop: the engine's message, then where the focused thread is. */
export function stopText(s: Session, st: Pick<Stop, 'reason' | 'message'>): string {
  // the kernel's end sets gdb's $_exitcode: 0 when it finished, 1 when a fault stopped it
  if (s.position() >= s.total) history(s).setConvenience('_exitcode', intValue(s.faultMessage === undefined ? 0n : 1n, T.int));
  const parts: string[] = [];
  if (st.message) parts.push(st.message);
  if (st.reason !== 'no-move' || !st.message) parts.push(stopLine(s));
  return parts.join('\n');
}

function num(text: string, what: string): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : Number(t);
  if (!t || !Number.isInteger(n)) throw new SessionError(`${what}: expected a number, got '${text.trim()}'`);
  return n;
}

function watch(s: Session, args: string, name: string): string {
  // -l / -location: watch the address the expression names now (our watchpoints always do)
  const expr = args.trim().replace(/^-(?:l|location)\s+/, '');
  if (!expr) throw new SessionError(`usage: ${name} EXPR`);
  const kind: WatchKind = name === 'rwatch' ? 'read' : name === 'awatch' ? 'access' : 'write';
  // a register (`$r5`), or a local that lives in one: watch the register of the focused thread
  const regName = /^[$%][a-z]+\d*$/i.test(expr) && s.threadView().registerType(expr.replace(/^\$/, '%')) !== undefined ? expr.replace(/^\$/, '%') : undefined;
  // a memory lvalue goes to the engine's watch; raw ranges (`@shared 0x40`) too
  const v = regName || /^@/.test(expr) ? undefined : evaluateExpression(debugInfo(s), s.threadView(), expr, history(s));
  const reg = regName ?? v?.register;
  if (reg !== undefined) {
    if (kind !== 'write') throw new SessionError(`${name} needs memory: ${expr} lives in register ${reg} (use watch to stop when it changes)`);
    const rtype = s.threadView().registerType(reg) ?? 'b32';
    const format = v ? formatterFor(v.type, v.size) : undefined;
    const wp = s.addRegisterWatchpoint(expr, reg, (hex) => {
      const b = Uint8Array.from(hex.match(/../g) ?? [], (x) => parseInt(x, 16));
      if (format) return format(b);
      let bits = 0n;
      for (let i = b.length - 1; i >= 0; i--) bits = (bits << 8n) | BigInt(b[i]!);
      return regText(rtype, bits);
    });
    return `Watchpoint ${wp.id}: ${expr} (in registers of block (${wp.block.join(',')}) thread (${wp.thread.join(',')}), re-evaluated at each of its steps)`;
  }
  return watchText(engineOf(s).addWatch(expr, kind, history(s)));
}

/** gdb's reply to `watch`: "Hardware watchpoint 2: y[3] (global 0x40, 4 bytes)". */
export function watchText(w: AddedWatch): string {
  const what = w.wp.kind === 'write' ? 'Hardware watchpoint' : w.wp.kind === 'read' ? 'Hardware read watchpoint' : 'Hardware access (read/write) watchpoint';
  const { wp } = w;
  if (w.raw) return `${what} ${wp.id}: ${wp.space} 0x${wp.address.toString(16)}, ${wp.size} bytes`;
  return `${what} ${wp.id}: ${wp.expr} (${wp.space} 0x${wp.address.toString(16)}, ${wp.size} bytes${wp.space === 'global' ? '' : `, block (${wp.block!.join(',')})`}${wp.space === 'local' ? ` thread (${wp.thread!.join(',')})` : ''})`;
}

/** gdb's reply to `break`: "Breakpoint 1 at kernel pc 4: file kernel.cu, line 12." */
export function breakText(bp: BreakpointInfo, temporary: boolean): string {
  const l = bp.locations[0]!;
  return `${temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.id} at ${l.function} pc ${l.pc}: ${l.file ? `file ${baseName(l.file)}, line ${l.line}` : 'no source'}${bp.locations.length > 1 ? ` (${bp.locations.length} locations)` : ''}.`;
}

/** cuda-gdb's reply to a focus switch, then where the thread is. */
export function focusText(s: Session): string {
  return `[Switching focus to CUDA kernel 0, grid 1, block (${s.focusBlock().join(',')}), thread (${s.focusThread().join(',')})]\n${stopLine(s)}`;
}

function historyCmd(s: Session, args: string): string {
  const expr = args.trim();
  if (!expr) throw new SessionError('usage: history EXPR   (a register like $r3 or a variable/lvalue in memory)');
  if (/^[$%][a-z]+\d*$/i.test(expr) && s.threadView().registerType(expr.replace(/^\$/, '%')) !== undefined) {
    const reg = expr.replace(/^\$/, '%');
    const rows = s.registerHistory(reg, 200);
    if (!rows.length) return `${reg} is never written by this thread.`;
    return [`History of ${reg} for block (${s.focusBlock().join(',')}) thread (${s.focusThread().join(',')}):`,
      ...rows.map((r) => `  step ${String(r.step).padStart(8)}  ${r.file ? `${baseName(r.file)}:${r.line}` : ''}  ${reg} = ${regText(s.threadView().registerType(reg) ?? 'b32', r.value)}`)].join('\n');
  }
  const v = evaluateExpression(debugInfo(s), s.threadView(), expr, history(s));
  if (v.register !== undefined && s.threadView().registerType(v.register) !== undefined) {
    // a local that lives in a register (most scalars of a -G build): its register's writes
    const reg = v.register;
    const rows = s.registerHistory(reg, 200);
    if (!rows.length) return `${expr} (in ${reg}) is never written by this thread.`;
    return [`History of ${expr} (in register ${reg}) for block (${s.focusBlock().join(',')}) thread (${s.focusThread().join(',')}):`,
      ...rows.map((r) => `  step ${String(r.step).padStart(8)}  ${r.file ? `${baseName(r.file)}:${r.line}` : ''}  ${expr} = ${regText(s.threadView().registerType(reg) ?? 'b32', r.value)}`)].join('\n');
  }
  if (v.address === undefined || (v.space !== 'global' && v.space !== 'shared' && v.space !== 'local')) throw new SessionError(`history needs a register or an lvalue in global, shared or local memory`);
  const addr = Number(v.address & 0xffffffffn);
  const target = { space: v.space as 'global' | 'shared' | 'local', address: addr, size: Math.max(1, v.size), ctaId: s.focusBlockId(), warpKey: s.focusKey, lane: s.focusLane };
  const fmt = formatterFor(v.type, v.size);
  const evs = s.memoryHistory(target, 'write');
  if (!evs.length) return `No writes to ${expr} (${v.space} 0x${addr.toString(16)}) in the recording.`;
  const shown = evs.slice(-200);
  const lines = [`Writes to ${expr} (${v.space} 0x${addr.toString(16)}, ${v.size} bytes)${evs.length > shown.length ? `, last ${shown.length} of ${evs.length}` : ''}:`];
  for (const e of shown) {
    lines.push(`  ${s.describeStep(e.step, e.lane)}: ${e.before ? fmt(e.before) : '?'} -> ${e.after ? fmt(e.after) : '?'}${e.acc === Access.Atomic ? ' (atomic)' : ''}`);
  }
  return lines.join('\n');
}

function printCmd(s: Session, args: string): string {
  const m = /^\/(lanes|block)(?:\/([xduotc]))?\s+(.*)$/s.exec(args.trim());
  if (!m) return printExpression(debugInfo(s), s.threadView(), args, history(s));
  return printLanes(s, m[1] === 'lanes' ? 'warp' : 'block', m[3]!, m[2]);
}

/**
 * The warp view of a value (engine lanes()): EXPR in each lane of the focused warp (or thread of
 * the block). Inactive lanes (diverged away) still show their value, marked; exited ones have
 * none. Runs of threads with the same value are folded in the block view.
 */
function printLanes(s: Session, scope: 'warp' | 'block', expr: string, radix: string | undefined): string {
  return lanesText(s, engineOf(s).lanes(expr, scope, radix), scope, expr);
}

export function lanesText(s: Session, rows: readonly LaneValue[], scope: 'warp' | 'block', expr: string): string {
  if (!rows.length) return 'No threads.';
  const cells = rows.map((r) => ({ r, text: r.value + (r.state === 'active' || r.value.startsWith('<') ? '' : `   (${r.state})`) }));
  const label = (r: LaneValue): string => `(${r.thread.join(',')})`;
  const out = [`${expr} for ${scope === 'warp' ? `warp ${rows[0]!.warp} of block (${s.focusBlock().join(',')})` : `block (${s.focusBlock().join(',')})`}:`];
  if (scope === 'warp') {
    for (const c of cells) out.push(`  lane ${String(c.r.lane).padStart(2)} thread ${label(c.r).padEnd(12)} ${c.text}`);
    return out.join('\n');
  }
  for (let i = 0; i < cells.length;) {
    let j = i;
    while (j + 1 < cells.length && cells[j + 1]!.text === cells[i]!.text) j++;
    out.push(`  ${j > i ? `threads ${label(cells[i]!.r)}..${label(cells[j]!.r)}` : `thread ${label(cells[i]!.r)}`}`.padEnd(40) + ` ${cells[i]!.text}`);
    i = j + 1;
  }
  return out.join('\n');
}

/** `origin EXPR` / `origin ^N`: jump to the step that last wrote the value and show its inputs. */
function originCmd(s: Session, args: string): Moved {
  if (!args.trim()) throw new SessionError('usage: origin EXPR | origin ^N   (a register $r3, a variable, an lvalue; ^N follows input N of the last answer)');
  const a = engineOf(s).origin(args, history(s));
  return { ...a.stop, message: `${originText(s, a)}\n${a.stop.message}` };
}

/** gdb-style text of an origin answer: the writing instruction, then its numbered inputs. */
export function originText(s: Session, a: OriginAnswer): string {
  const hop = a.hop;
  const ins = hop.instruction;
  const ptx = s.ptxText.slice(ins.src.span.start, ins.src.span.end).replace(/\s+/g, ' ').trim();
  const lines = [`${a.what} was last written by PTX ${hop.pc} of ${hop.function}: ${ptx}`];
  if (hop.inputs.length) {
    lines.push('Inputs at that step:');
    hop.inputs.forEach((x, i) => {
      const val = x.bytes ? bytesText(x.bytes) : x.bits !== undefined ? `${x.bits} (0x${x.bits.toString(16)})` : '';
      const text = x.follow?.kind === 'memory' ? `[${s.memoryName(x.follow.target)}]` : x.text;
      lines.push(`  ^${i + 1}  ${text}${val ? ` = ${val}` : ''}${x.follow || x.text.endsWith('(immediate)') ? '' : '   (no earlier writer)'}`);
    });
    lines.push('Follow one further back with `origin ^N`.');
  }
  return lines.join('\n');
}

/** Little-endian bytes as an unsigned integer (what a load of them gives). */
function bytesText(b: Uint8Array): string {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return `${v} (0x${v.toString(16).padStart(b.length * 2, '0')})`;
}

function infoCmd(s: Session, args: string): string {
  const [what = '', ...rest] = args.trim().split(/\s+/);
  const restText = rest.join(' ');
  const view = (): ReturnType<Session['threadView']> => s.threadView();
  switch (what) {
    case 'locals': return infoLocals(debugInfo(s), view());
    case 'args': return infoArgs(debugInfo(s), view());
    case 'variables': return infoVariables(debugInfo(s), view());
    case 'registers': case 'reg': case 'r': {
      const regs = s.registers().filter((r) => !restText || restText.split(/\s+/).includes(r.name) || restText.split(/\s+/).includes(r.name.replace('%', '$')));
      if (!regs.length) return 'No registers.';
      return regs.map((r) => `${r.name.padEnd(8)} ${('0x' + r.bits.toString(16)).padEnd(20)} ${r.type === 'pred' ? (r.bits ? 'true' : 'false') : r.type.startsWith('f') && r.type !== 'f16' ? registerFloat(r.type, r.bits) : String(r.bits)}${r.changed ? '  *' : ''}`).join('\n');
    }
    case 'breakpoints': case 'break': case 'b': case 'watchpoints': {
      const rows = [...s.breakpoints().map((b) => `${String(b.id).padEnd(4)}breakpoint  ${b.enabled ? 'y' : 'n'}  ${b.spec}  (${b.locations.length} location${b.locations.length === 1 ? '' : 's'}${b.hits ? `, hit ${b.hits} time${b.hits === 1 ? '' : 's'}` : ''})`),
        ...s.watchpoints().map((w) => `${String(w.id).padEnd(4)}${w.kind === 'write' ? 'watchpoint ' : w.kind === 'read' ? 'rwatch     ' : 'awatch     '}  ${w.enabled ? 'y' : 'n'}  ${w.expr}  (${w.space} 0x${w.address.toString(16)}, ${w.size} bytes${w.hits ? `, hit ${w.hits} time${w.hits === 1 ? '' : 's'}` : ''})`),
        ...s.registerWatchpoints().map((w) => `${String(w.id).padEnd(4)}watchpoint  ${w.enabled ? 'y' : 'n'}  ${w.expr}  (in registers of block (${w.block.join(',')}) thread (${w.thread.join(',')})${w.hits ? `, hit ${w.hits} time${w.hits === 1 ? '' : 's'}` : ''})`)];
      return rows.length ? ['Num Type        Enb What', ...rows].join('\n') : 'No breakpoints or watchpoints.';
    }
    case 'threads': case 'warps': case 'lanes': {
      const ws = s.warps();
      if (!ws.length) return 'No resident blocks at this step.';
      const cur = s.where();
      const out: string[] = [];
      for (const w of ws) {
        const counts = new Map<string, number>();
        for (const l of w.lanes) counts.set(l, (counts.get(l) ?? 0) + 1);
        const mine = w.block.join(',') === cur.block.join(',') && w.warp === cur.warp ? '*' : ' ';
        const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
        const lanes = what === 'lanes' || mine === '*' ? '  ' + w.lanes.map((l) => ({ active: 'A', inactive: '.', barrier: 'B', exited: 'x', 'not-started': '-', retired: '-' })[l]).join('') : '';
        out.push(`${mine} block (${w.block.join(',')}) warp ${w.warp}: ${w.function} ${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`}  [${summary}]${lanes}`);
      }
      return out.join('\n');
    }
    case 'frame': case 'f': return backtrace(s, ctx(s));
    case 'display': return state(s).displays.map((d) => `${d.id}:   y  ${d.expr}`).join('\n') || 'There are no auto-display expressions now.';
    case 'line': { const w = s.where(); return w.file ? `Line ${w.line} of "${w.file}", ${w.function} instruction ${w.pc}` : `${w.function} instruction ${w.pc}`; }
    case 'races': return infoRaces(s);
    case 'cuda': {
      // cuda-gdb's `info cuda threads|warps|lanes|blocks|kernels`
      const sub = rest[0] ?? '';
      if (sub === 'kernels') return infoCudaKernels(s);
      if (sub === 'blocks') return infoCudaBlocks(s);
      if (['threads', 'warps', 'lanes', ''].includes(sub)) return infoCmd(s, sub === 'lanes' ? 'lanes' : 'threads');
      throw new SessionError(`info cuda what? kernels, blocks, threads, warps, lanes`);
    }
    default:
      throw new SessionError(`info what? locals, args, variables, registers, breakpoints, watchpoints, threads, warps, lanes, frame, line, races`);
  }
}

/** A register value as its type reads: floats in gdb's format, integers in decimal and hex. */
function regText(type: string, bits: bigint): string {
  if (type === 'pred') return bits ? 'true' : 'false';
  if (type === 'f32' || type === 'f64') return registerFloat(type, bits);
  return `${bits} (0x${bits.toString(16)})`;
}


/** `cuda block (1,0,0) thread (3,0,0)`, `cuda thread 5`, `cuda warp 2 lane 3`, bare `cuda thread` shows focus. */
function cudaCmd(s: Session, args: string): string {
  const t = args.trim();
  if (!t || /^(thread|block|warp|lane|kernel)$/.test(t)) {
    const w = s.where();
    return `block (${w.block.join(',')}), thread (${w.thread.join(',')}), warp ${w.warp}, lane ${w.lane}`;
  }
  let block: Dim3 | undefined;
  let thread: Dim3 | undefined;
  const b = /block\s*(\([^)]*\)|[\d,\s]+?)(?=\s*(?:thread|warp|lane|$))/.exec(t);
  if (b) block = dims(b[1]!);
  const th = /thread\s*(\([^)]*\)|[\d,\s]+?)(?=\s*(?:block|warp|lane|$))/.exec(t);
  if (th) thread = dims(th[1]!);
  const wm = /warp\s*(\d+)/.exec(t);
  const lm = /lane\s*(\d+)/.exec(t);
  if (wm || lm) {
    const curLin = linearOf(s.focusThread(), s.launch.block);
    const warp = wm ? Number(wm[1]) : curLin >>> 5;
    const lane = lm ? Number(lm[1]) : curLin & 31;
    const nthreads = s.launch.block[0] * s.launch.block[1] * s.launch.block[2];
    if (lane > 31) throw new SessionError(`lane ${lane} does not exist (lanes are 0..31)`);
    if (warp * 32 + lane >= nthreads) throw new SessionError(`warp ${warp} lane ${lane} does not exist: a block has ${Math.ceil(nthreads / 32)} warp(s) of ${nthreads} threads`);
    thread = coordsOf(warp * 32 + lane, s.launch.block);
  }
  if (!block && !thread) throw new SessionError(`usage: cuda block (x,y,z) thread (x,y,z) | cuda thread (x,y,z) | cuda warp N lane M`);
  const err = s.setFocus(block, thread);
  if (err) throw new SessionError(err);
  return focusText(s);
}

function listCmd(s: Session, args: string): string {
  const ranged = listRange(s, args);
  if (ranged !== undefined) return ranged;
  const w = s.where();
  const lines = sourceLines(s, w.file);
  const center = args.trim() ? num(args, 'list') : w.line;
  if (!lines) {
    // PTX listing around the current instruction
    const prog = s.program.functions.get(w.function);
    if (!prog) return 'No source.';
    const lm = new LineMap(s.ptxText);
    const ptxLines = s.ptxText.split('\n');
    const ins = prog.instrs[w.pc];
    const at = ins ? lm.position(ins.src.span.start).line : 1;
    const out: string[] = [];
    for (let l = Math.max(1, at - 5); l <= Math.min(ptxLines.length, at + 5); l++) out.push(`${l === at ? '=>' : '  '}${String(l).padStart(6)}  ${ptxLines[l - 1]}`);
    return out.join('\n');
  }
  if (center < 1 || center > lines.length) throw new SessionError(`Line number ${center} out of range; "${baseName(w.file ?? '')}" has ${lines.length} lines.`);
  const out: string[] = [];
  for (let l = Math.max(1, center - 5); l <= Math.min(lines.length, center + 5); l++) out.push(`${l === w.line ? '=>' : '  '}${String(l).padStart(5)}\t${lines[l - 1]}`);
  return out.join('\n');
}

/** x/Nfu ADDR-EXPR: examine memory (gdb). Formats: x (hex words), d, u, f (float), b/h/w/g sizes. */
function examine(s: Session, args: string): string {
  const ins = /^\/(\d*)i\s+(.+)$/.exec(args.trim());
  if (ins) return examineInstructions(s, ctx(s), ins[1] ? Number(ins[1]) : 1, ins[2]!);
  const str = /^\/s\s+(.+)$/.exec(args.trim());
  if (str) {
    const v = evaluateExpression(debugInfo(s), s.threadView(), str[1]!, history(s));
    if (v.type.endsWith('*') && v.bytes && v.bytes.length === 8) {
      const sp = /@(\w+)/.exec(v.type);
      return examineString(s, (sp ? sp[1] : 'generic') as 'generic', new DataView(v.bytes.buffer, v.bytes.byteOffset, 8).getBigUint64(0, true));
    }
    if (v.address === undefined || v.space === undefined) throw new SessionError(`cannot take the address of '${str[1]}'`);
    return examineString(s, v.space as 'generic', v.address);
  }
  const m = /^\/(\d*)([xduftcb]?)([bhwg]?)\s+(.+)$/.exec(args.trim()) ?? /^()()()(.+)$/.exec(args.trim());
  if (!m || !m[4]) throw new SessionError('usage: x/NFU EXPR   e.g. x/8xw &tile[0], x/4f *(@shared float *)0x10');
  const count = m[1] ? Number(m[1]) : 1;
  const fmt = m[2] || 'x';
  const unit = m[3] || (fmt === 'f' ? 'w' : 'w');
  const size = { b: 1, h: 2, w: 4, g: 8 }[unit] ?? 4;
  const v = evaluateExpression(debugInfo(s), s.threadView(), m[4], history(s));
  // x takes the value of a pointer expression, or the address of an lvalue array
  let space = v.space as 'global' | 'shared' | 'local' | 'const' | 'param' | 'generic' | undefined;
  let address = v.address;
  if (v.type.endsWith('*') && v.bytes && v.bytes.length === 8) {
    address = new DataView(v.bytes.buffer, v.bytes.byteOffset, 8).getBigUint64(0, true);
    const sp = /@(\w+)/.exec(v.type);
    space = (sp ? sp[1] : 'generic') as typeof space;
  }
  if (address === undefined || space === undefined) throw new SessionError(`cannot take the address of '${m[4]}'`);
  const bytes = s.threadView().readMemory(space, address, count * size);
  if (!bytes) return `Cannot access memory at ${space} address 0x${address.toString(16)}`;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  const perLine = Math.max(1, 16 / size);
  for (let i = 0; i < count; i++) {
    if (i % perLine === 0) out.push(`${space} 0x${(address + BigInt(i * size)).toString(16)}:`);
    const o = i * size;
    let t: string;
    if (fmt === 'f') t = size === 8 ? String(dv.getFloat64(o, true)) : String(dv.getFloat32(o, true));
    else {
      const raw = size === 1 ? BigInt(dv.getUint8(o)) : size === 2 ? BigInt(dv.getUint16(o, true)) : size === 4 ? BigInt(dv.getUint32(o, true)) : dv.getBigUint64(o, true);
      const signed = BigInt.asIntN(size * 8, raw);
      t = fmt === 'd' ? String(signed) : fmt === 'u' ? String(raw) : fmt === 't' ? raw.toString(2).padStart(size * 8, '0') : fmt === 'c' ? `${raw} '${String.fromCharCode(Number(raw))}'` : '0x' + raw.toString(16).padStart(size * 2, '0');
    }
    out[out.length - 1] += `\t${t}`;
  }
  return out.join('\n');
}

const HELP_ORDER: string[] = [];

/** `next 3`: repeat a movement (stopping early at a breakpoint, watchpoint, exit or the end). */
function repeat(a: string, once: () => Moved): Moved {
  const t = a.trim();
  const n = t ? num(t, 'count') : 1;
  if (n < 1) throw new SessionError(`count must be at least 1`);
  let st = once();
  for (let i = 1; i < n && st.reason === 'step'; i++) st = once();
  return st;
}

const COMMANDS: Cmd[] = [
  { names: ['next', 'n'], help: 'next [N]: the focused thread runs to the next source line (over calls)', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'line', direction: 'forward' })) },
  { names: ['reverse-next', 'rn'], help: 'reverse-next: back to the previous source line (over calls)', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'line', direction: 'backward' })) },
  { names: ['step', 's'], help: 'step: to the next source line, into calls', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'line', direction: 'forward', into: true })) },
  { names: ['reverse-step', 'rs'], help: 'reverse-step: back to the previous source line, into calls', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'line', direction: 'backward', into: true })) },
  { names: ['stepi', 'si'], help: 'stepi [N]: the focused thread\'s next PTX instruction', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'instruction', direction: 'forward', into: true })) },
  { names: ['reverse-stepi', 'rsi'], help: 'reverse-stepi [N]: its previous PTX instruction', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'instruction', direction: 'backward', into: true })) },
  { names: ['nexti', 'ni'], help: 'nexti [N]: next PTX instruction, over calls', moves: true, run: (s, a) => repeat(a, () => engineOf(s).step({ granularity: 'instruction', direction: 'forward' })) },
  {
    names: ['finish', 'fin'], help: 'finish: run until the current function returns; prints the value it returned', moves: true,
    run: (s) => {
      s.lastReturn = undefined;
      const st = engineOf(s).finish({ direction: 'forward' });
      const r = s.lastReturn as { function: string; bytes: Uint8Array } | undefined;
      const shown = r ? printReturnValue(debugInfo(s), s.threadView(), r.function, r.bytes, history(s)) : undefined;
      return shown ? { ...st, message: `${st.message}\nValue returned is ${shown}` } : st;
    },
  },
  { names: ['reverse-finish', 'rf'], help: 'reverse-finish: back to where the current function was called', moves: true, run: (s) => engineOf(s).finish({ direction: 'backward' }) },
  {
    names: ['continue', 'c', 'cont'], help: 'continue [N]: to the next breakpoint or watchpoint (or the end); N: pass the breakpoint stopped at N-1 more times', moves: true,
    run: (s, a) => {
      if (a.trim()) {
        const n = num(a, 'continue');
        if (n < 1) throw new SessionError('continue N: N must be at least 1');
        if (s.lastBreakpoint === undefined) throw new SessionError('Not stopped at a breakpoint; "continue N" means: ignore it N-1 more times.');
        s.ignoreBreakpoint(s.lastBreakpoint, n - 1);
      }
      return engineOf(s).continue({ direction: 'forward' });
    },
  },
  {
    names: ['ignore'], help: 'ignore N COUNT: pass over the next COUNT hits of breakpoint N',
    run: (s, a) => {
      const [id, count] = a.trim().split(/\s+/);
      if (id === undefined || count === undefined) throw new SessionError('usage: ignore N COUNT');
      const n = num(count, 'ignore');
      s.ignoreBreakpoint(num(id, 'ignore'), n);
      return n === 0 ? `Will stop next time breakpoint ${id} is reached.` : `Will ignore next ${n} crossing${n === 1 ? '' : 's'} of breakpoint ${id}.`;
    },
  },
  { names: ['reverse-continue', 'rc'], help: 'reverse-continue: back to the previous breakpoint or watchpoint (or the start)', moves: true, run: (s) => engineOf(s).continue({ direction: 'backward' }) },
  { names: ['run', 'r'], help: 'run: from the start to the first breakpoint', moves: true, run: (s) => engineOf(s).run() },
  { names: ['start'], help: 'start: go to step 0', moves: true, run: (s) => engineOf(s).goto(0) },
  {
    names: ['goto'], help: 'goto STEP | start | end | +N | -N: travel to a warp-step of the recording', moves: true,
    run: (s, a) => {
      const t = a.trim();
      if (t === 'start' || t === 'begin') return engineOf(s).goto(0);
      if (t === 'end') return engineOf(s).goto(s.total);
      if (/^[+-]\d+$/.test(t)) return engineOf(s).goto(Math.max(0, Math.min(s.total, s.position() + Number(t))));
      return engineOf(s).goto(num(t, 'goto'));
    },
  },
  {
    names: ['break', 'b', 'tbreak'], help: 'break FILE:LINE | LINE | FUNCTION | ptx:LINE | *INSTR [if threadIdx.x == N && blockIdx.x == M | thread (x,y,z) | block (x,y,z)]',
    run: (s, a, name) => breakText(s.addBreakpoint(a.trim() || `${s.where().file ?? ''}:${s.where().line}`, name === 'tbreak'), name === 'tbreak'),
  },
  { names: ['delete', 'd'], help: 'delete [N]: remove breakpoint/watchpoint N (all without N)', run: (s, a) => s.deleteBreakpoint(a.trim() ? num(a, 'delete') : undefined) },
  { names: ['disable'], help: 'disable N', run: (s, a) => { s.enableBreakpoint(num(a, 'disable'), false); return `${a.trim()} disabled.`; } },
  { names: ['enable'], help: 'enable N', run: (s, a) => { s.enableBreakpoint(num(a, 'enable'), true); return `${a.trim()} enabled.`; } },
  { names: ['watch'], help: 'watch EXPR | watch @SPACE ADDR [LEN]: stop when the value in memory changes (both directions)', run: watch },
  { names: ['rwatch'], help: 'rwatch EXPR: stop when it is read', run: watch },
  { names: ['awatch'], help: 'awatch EXPR: stop when it is read or written', run: watch },
  { names: ['print', 'p', 'output', 'call'], help: 'print[/x] EXPR: a variable, member, element, register ($r1), special ($tid.x), cast (*(@shared int *)0x10); print/lanes EXPR: all 32 lanes of the warp; print/block EXPR: every thread of the block', run: (s, a) => printCmd(s, a) },
  { names: ['x'], help: 'x/NFU EXPR: examine memory (F: x d u f t c; U: b h w g)', run: (s, a) => examine(s, a) },
  { names: ['info', 'i'], help: 'info locals|args|variables|registers|breakpoints|threads|warps|lanes|frame|line|races', run: (s, a) => infoCmd(s, a) },
  { names: ['backtrace', 'bt', 'where'], help: 'backtrace: the focused thread\'s call stack, with argument values', run: (s) => backtrace(s, ctx(s)) },
  { names: ['frame', 'f'], help: 'frame N: select a frame of the call stack', run: (s, a) => { if (a.trim()) { const e = s.selectFrame(num(a, 'frame')); if (e) throw new SessionError(e); } return backtrace(s, ctx(s)); } },
  { names: ['up'], help: 'up: select the caller\'s frame', run: (s) => { const e = s.selectFrame(s.selectedFrame + 1); if (e) throw new SessionError('Initial frame selected; you cannot go up.'); return backtrace(s, ctx(s)); } },
  { names: ['down'], help: 'down: select the callee\'s frame', run: (s) => { const e = s.selectFrame(s.selectedFrame - 1); if (e) throw new SessionError('Bottom (innermost) frame selected; you cannot go down.'); return backtrace(s, ctx(s)); } },
  { names: ['cuda'], help: 'cuda block (x,y,z) thread (x,y,z) | cuda warp N lane M: switch the focused thread', run: (s, a) => cudaCmd(s, a) },
  { names: ['thread'], help: 'thread (x,y,z): focus a thread of the current block', run: (s, a) => (a.trim() ? cudaCmd(s, `thread ${a}`) : cudaCmd(s, '')) },
  { names: ['whatis'], help: 'whatis EXPR: the type of an expression', run: (s, a) => whatis(s, ctx(s), a, false) },
  { names: ['ptype'], help: 'ptype EXPR: the type, with structs spelled out', run: (s, a) => whatis(s, ctx(s), a, true) },
  {
    names: ['display'], help: 'display [EXPR]: show EXPR after every stop (no EXPR: show them now)',
    run: (s, a) => {
      const g = state(s);
      if (!a.trim()) return displayLines(s, ctx(s), g.displays).join('\n') || 'No display expressions.';
      const d = { id: g.nextDisplay++, expr: a.trim() };
      g.displays.push(d);
      return displayLines(s, ctx(s), [d]).join('\n');
    },
  },
  {
    names: ['undisplay'], help: 'undisplay [N]: stop showing display N (all without N)',
    run: (s, a) => {
      const g = state(s);
      if (!a.trim()) { g.displays.length = 0; return 'Deleted all displays.'; }
      const id = num(a, 'undisplay');
      const i = g.displays.findIndex((d) => d.id === id);
      if (i < 0) throw new SessionError(`No display number ${id}.`);
      g.displays.splice(i, 1);
      return `Deleted display ${id}.`;
    },
  },
  { names: ['disassemble', 'disas'], help: 'disassemble [FUNC]: the PTX of the function, the current instruction marked =>', run: (s, a) => disassemble(s, a) },
  {
    names: ['until', 'u', 'advance'], help: 'until: next line, without going back round a loop; until/advance LOCATION: run to LOCATION (or until the current function returns)', moves: true,
    run: (s, a, name) => (a.trim() ? s.runTo(a.trim()) : name === 'advance' ? (() => { throw new SessionError('usage: advance LOCATION'); })() : s.until()),
  },
  { names: ['origin'], help: 'origin EXPR | origin ^N: go to the step that last wrote the value (any thread), show its inputs; ^N follows input N', moves: true, run: (s, a) => originCmd(s, a) },
  { names: ['history'], help: 'history EXPR: every write to a variable/lvalue (or a register: $r3) with step, thread and line', run: (s, a) => historyCmd(s, a) },
  { names: ['list', 'l'], help: 'list [LINE | FUNC | A,B]: source around the current line, of a function, or lines A to B', run: (s, a) => listCmd(s, a) },
  { names: ['stdout', 'printf'], help: 'stdout: printf output so far', run: (s) => s.output() || '(no output yet)' },
  { names: ['where-am-i', 'status'], help: 'status: step, focused thread, location', run: (s) => stopLine(s) },
  { names: ['race'], help: 'race N [other]: travel to the first (or second) access of race N', moves: true, run: (s, a) => raceCommand(s, a) },
  {
    names: ['help', 'h', '?'], help: 'help [CMD]: this list, or one command',
    run: (_s, a) => {
      const want = a.trim().toLowerCase();
      if (!want) return helpText();
      const c = COMMANDS.find((x) => x.names.includes(want));
      if (!c) throw new SessionError(`Undefined command: "${want}". Try "help".`);
      return `${c.help}${c.names.length > 1 ? `\nAliases: ${c.names.join(', ')}` : ''}`;
    },
  },
  { names: ['quit', 'q', 'exit'], help: 'quit', run: () => '' },
];

for (const c of COMMANDS) HELP_ORDER.push(c.names[0]!);

export const COMMAND_NAMES: readonly string[] = COMMANDS.flatMap((c) => c.names).concat(['info locals', 'info args', 'info variables', 'info registers', 'info breakpoints', 'info threads', 'info warps', 'info races']);

function helpText(): string {
  return ['Commands (gdb / rr / cuda-gdb style; reverse-* travel back in the recording):', ...COMMANDS.map((c) => `  ${c.names.join(', ').padEnd(30)} ${c.help}`)].join('\n');
}

/** The `display` expressions after a stop made outside the command line (the TUI's keys). */
export function displaysText(s: Session): string {
  return displayLines(s, ctx(s), state(s).displays).join('\n');
}

/**
 * Run one command line. `repeatOnEmpty` (interactive consoles): an empty line repeats the last
 * stepping command, as gdb does at its prompt; scripts and batch input do not repeat.
 */
export function executeCommand(s: Session, line: string, opts: { repeatOnEmpty?: boolean } = {}): { output: string; moved: boolean; quit: boolean; error: boolean } {
  let text = line.trim();
  if (!text && opts.repeatOnEmpty && state(s).repeat) text = state(s).repeat!;
  if (!text || text.startsWith('#')) return { output: '', moved: false, quit: false, error: false };
  const m = /^([a-zA-Z?-]+)(\/\S*)?\s*(.*)$/s.exec(text);
  const name = m ? m[1]!.toLowerCase() : text;
  const cmd = COMMANDS.find((c) => c.names.includes(name));
  if (!cmd) {
    const near = COMMANDS.flatMap((c) => c.names).filter((n) => n.startsWith(name));
    return { output: `Undefined command: "${name}".${near.length ? ` Did you mean ${near.slice(0, 4).join(', ')}?` : ''} Try "help".`, moved: false, quit: false, error: true };
  }
  const args = (m?.[2] ?? '') + (m?.[2] ? ' ' : '') + (m?.[3] ?? '');
  if (cmd.names[0] === 'quit') return { output: '', moved: false, quit: true, error: false };
  const before = s.position();
  try {
    const r = cmd.run(s, args, name);
    if (cmd.moves) state(s).repeat = text;
    if (typeof r === 'string') return { output: r, moved: s.position() !== before, quit: false, error: false };
    const shown = displayLines(s, ctx(s), state(s).displays);
    return { output: [stopText(s, r), ...shown].join('\n'), moved: true, quit: false, error: false };
  } catch (e) {
    if (e instanceof SessionError || e instanceof PrintError) return { output: e.message, moved: s.position() !== before, quit: false, error: true };
    if (e instanceof RangeError || e instanceof TraceError) return { output: e.message, moved: false, quit: false, error: true };
    throw e;
  }
}
