/**
 * The engine's text presenters: the words gdb, cuda-gdb and rr print for stops, breakpoints,
 * watchpoints, values, histories and tables. The gdb command language and the TUI both show
 * these, so a stop reads the same in batch mode, at the TUI's `:` line and in its panes.
 */
import { evaluateExpression, infoArgs, infoLocals, infoVariables, printExpression, printReturnValue } from '../print/index.js';
import { intValue } from '../print/arith.js';
import { T } from '../print/ctypes.js';
import { Access } from '../../exec/probe.js';
import { EngineError } from '../errors.js';
import { baseName } from '../sources.js';
import { printName, signatureName } from '../../ptx/names.js';
import { formatterFor, registerFloat } from '../values.js';
import { type Engine, sessionOf } from '../api.js';
import { noDeviceThread } from '../api/program.js';
import type { AddedWatch, BreakpointInfo, DataSpace, LaneValue, OriginAnswer, SpaceName, Stop, WatchKind } from '../types.js';
import { consoleState, printOptions } from './state.js';
import { wrapText } from './wrap.js';
import { examineInstructions, examineString, listRange } from './inspect.js';
import { programHistoryText } from '../program/memory.js';
import { assignText, timelineTag } from './whatif.js';
import { isAssignment } from '../print/assign.js';

/** The one-line "where we are" gdb prints after a stop: `12\t  y[i] = a * x[i] + y[i];`. */
export function stopLine(e: Engine): string {
  const s = sessionOf(e);
  const w = s.where();
  let lanes = 0;
  for (let m = w.activeMask; m !== 0; m &= m - 1) lanes++;
  const head = `[${timelineTag(e)}step ${w.at.step}/${w.total}] block (${w.block.join(',')}) thread (${w.thread.join(',')}) warp ${w.warp} lane ${w.lane}` +
    (w.state === 'active' || w.state === 'inactive' ? `, ${lanes} lane${lanes === 1 ? '' : 's'} active, pc ${w.pc}` : '');
  if (w.state === 'exited' || w.state === 'retired') return `${launchLine(e)}${head}: exited`;
  if (w.state === 'not-started') return `${launchLine(e)}${head}: block not started yet`;
  const src = sourceLine(e, w.file, w.line);
  // at a source line the C++ name, as gdb prints it; at PTX level the PTX name its pcs belong to
  const loc = w.file ? `${printName(w.function)} at ${baseName(w.file)}:${w.line}` : `${printName(w.function)} pc ${w.pc}`;
  const state = w.state === 'active' ? '' : ` (${w.state === 'inactive' ? 'inactive: waiting at a divergent branch' : 'waiting at a barrier'})`;
  return `${launchLine(e)}${head}${state}\n${loc}\n${src !== undefined ? `${w.line}\t${src}` : `   ${w.pc}: ${w.ptx}`}`;
}

/** In a program of several launches, the stop names its launch: `[launch 2 scale<<<(2,1,1),(4,1,1)>>> at offbyone.cu:57]`. */
function launchLine(e: Engine): string {
  if (!e.isProgram || e.launches().length < 2) return '';
  const l = e.currentLaunch();
  return `[launch ${l.index} ${l.kernel}<<<(${l.grid.join(',')}),(${l.block.join(',')})>>>${l.site ? ` at ${l.site}` : ''}]\n`;
}

export function sourceLine(e: Engine, file: string | undefined, line: number): string | undefined {
  return sourceLines(e, file)?.[line - 1];
}

export function sourceLines(e: Engine, file: string | undefined): readonly string[] | undefined {
  const s = sessionOf(e);
  return file === undefined ? undefined : s.sources.get(file)?.lines;
}

/** The text gdb prints for a stop: the engine's message, then where the focused thread is. */
export function stopText(e: Engine, st: Pick<Stop, 'reason' | 'message'>): string {
  const s = sessionOf(e);
  // the kernel's end sets gdb's $_exitcode: 0 when it finished, 1 when a fault stopped it
  // (a program's: its own exit code, at its end)
  if (e.isProgram) { if (st.reason === 'end' && e.exitCode !== undefined) consoleState(e).history.setConvenience('_exitcode', intValue(BigInt(e.exitCode), T.int)); }
  else if (s.position() >= s.total) consoleState(e).history.setConvenience('_exitcode', intValue(s.faultMessage === undefined ? 0n : 1n, T.int));
  // cuda-gdb's $_launch: the launch in focus (issue #25)
  consoleState(e).history.setConvenience('_launch', intValue(BigInt(e.position().launch), T.int));
  const parts: string[] = [];
  if (st.message) parts.push(st.message);
  // at a host event no thread runs: the message names the host call (program/host.ts)
  if ((st.reason !== 'no-move' || !st.message) && !e.hostStop()) parts.push(stopLine(e));
  return parts.join('\n');
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
  const l = bp.locations[0];
  // gdb's pending breakpoint: in a program, a location not in the launch in focus (issue #25)
  if (!l) return `${bp.note ? `${bp.note}\n` : ''}${temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.id} (${bp.spec}) pending.`;
  return `${temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.id} at ${printName(l.function)} pc ${l.pc}: ${l.file ? `file ${baseName(l.file)}, line ${l.line}` : 'no source'}${bp.locations.length > 1 ? ` (${bp.locations.length} locations)` : ''}.`;
}

/** cuda-gdb's reply to a focus switch, then where the thread is. */
export function focusText(e: Engine): string {
  const s = sessionOf(e);
  return `[Switching focus to CUDA kernel 0, grid 1, block (${s.focusBlock().join(',')}), thread (${s.focusThread().join(',')})]\n${stopLine(e)}`;
}


export function lanesText(e: Engine, rows: readonly LaneValue[], scope: 'warp' | 'block', expr: string): string {
  const s = sessionOf(e);
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


/** gdb-style text of an origin answer: the writing instruction, then its numbered inputs. */
export function originText(e: Engine, a: OriginAnswer): string {
  const s = sessionOf(e);
  const hop = a.hop;
  // no thread wrote it (a program's host call or unrecorded launch): who did, and the bytes
  if (!hop) return `${a.what} was last written by ${a.by ?? 'no thread'}${a.after ? `: ${a.before ? bytesText(a.before) : '?'} -> ${bytesText(a.after)}` : ''}`;
  const ins = hop.instruction;
  const ptx = s.ptxText.slice(ins.src.span.start, ins.src.span.end).replace(/\s+/g, ' ').trim();
  const lines = [`${a.what} was last written by ${a.by ? `${a.by}: ` : ''}PTX ${hop.pc} of ${printName(hop.function)}: ${ptx}`];
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


/** A register value as its type reads: floats in gdb's format, integers in decimal and hex. */
function regText(type: string, bits: bigint): string {
  if (type === 'pred') return bits ? 'true' : 'false';
  if (type === 'f32' || type === 'f64') return registerFloat(type, bits);
  return `${bits} (0x${bits.toString(16)})`;
}



/** `history EXPR`: every write to a register or an lvalue in memory, with step, thread and line. */
export function historyText(e: Engine, args: string): string {
  const s = sessionOf(e);
  const expr = args.trim();
  if (!expr) throw new EngineError('usage: history EXPR   (a register like $r3 or a variable/lvalue in memory)');
  if (/^[$%][a-z]+\d*$/i.test(expr) && s.threadView().registerType(expr.replace(/^\$/, '%')) !== undefined) {
    const reg = expr.replace(/^\$/, '%');
    const rows = s.registerHistory(reg, 200);
    if (!rows.length) return `${reg} is never written by this thread.`;
    return [`History of ${reg} for block (${s.focusBlock().join(',')}) thread (${s.focusThread().join(',')}):`,
      ...rows.map((r) => `  step ${String(r.step).padStart(8)}  ${r.file ? `${baseName(r.file)}:${r.line}` : ''}  ${reg} = ${regText(s.threadView().registerType(reg) ?? 'b32', r.value)}`)].join('\n');
  }
  const v = evaluateExpression(s.debugInfo(), s.threadView(), expr, consoleState(e).history);
  if (v.register !== undefined && s.threadView().registerType(v.register) !== undefined) {
    // a local that lives in a register (most scalars of a -G build): its register's writes
    const reg = v.register;
    const rows = s.registerHistory(reg, 200);
    if (!rows.length) return `${expr} (in ${reg}) is never written by this thread.`;
    return [`History of ${expr} (in register ${reg}) for block (${s.focusBlock().join(',')}) thread (${s.focusThread().join(',')}):`,
      ...rows.map((r) => `  step ${String(r.step).padStart(8)}  ${r.file ? `${baseName(r.file)}:${r.line}` : ''}  ${expr} = ${regText(s.threadView().registerType(reg) ?? 'b32', r.value)}`)].join('\n');
  }
  if (v.address === undefined || (v.space !== 'global' && v.space !== 'shared' && v.space !== 'local')) throw new EngineError(`history needs a register or an lvalue in global, shared or local memory`);
  const addr = Number(v.address & 0xffffffffn);
  const target = { space: v.space as DataSpace, address: addr, size: Math.max(1, v.size), ctaId: s.focusBlockId(), warpKey: s.focusKey, lane: s.focusLane };
  const fmt = formatterFor(v.type, v.size);
  // a program: every launch's writes and the host's copies (program/memory.ts)
  const across = v.space === 'global' ? e.writesAcross(addr, target.size) : undefined;
  if (across) return programHistoryText(expr, { offset: addr, size: target.size }, across, fmt);
  const evs = s.memoryHistory(target, 'write');
  if (!evs.length) return `No writes to ${expr} (${v.space} 0x${addr.toString(16)}) in the recording.`;
  const shown = evs.slice(-200);
  const lines = [`Writes to ${expr} (${v.space} 0x${addr.toString(16)}, ${v.size} bytes)${evs.length > shown.length ? `, last ${shown.length} of ${evs.length}` : ''}:`];
  for (const e of shown) {
    lines.push(`  ${s.describeStep(e.step, e.lane)}: ${e.before ? fmt(e.before) : '?'} -> ${e.after ? fmt(e.after) : '?'}${e.acc === Access.Atomic ? ' (atomic)' : ''}`);
  }
  return lines.join('\n');
}

/** `info registers [NAMES]`: the focused thread's registers, `*` on those the last step changed. */
/** At a host call, why `info registers|locals|args` has nothing to list (gdb's "No frame selected."). */
function noFrameAtHost(e: Engine, what: string): void {
  const host = e.hostStop();
  if (host) throw new EngineError(`No ${what}: ${noDeviceThread(host)} (launch N goes into a launch).`);
}

export function registersText(e: Engine, restText: string): string {
  noFrameAtHost(e, 'registers');
  const s = sessionOf(e);
  // gdb spells them $r1 or r1; PTX %r1
  const asked = restText.split(/\s+/).filter(Boolean).map((n) => n.replace(/^[$%]/, ''));
  const all = s.registers();
  const unknown = asked.find((n) => !all.some((r) => r.name.slice(1) === n));
  if (unknown !== undefined && all.length) throw new EngineError(`Invalid register \`${unknown}'`);
  const regs = all.filter((r) => !asked.length || asked.includes(r.name.slice(1)));
  if (!regs.length) return 'No registers.';
  return regs.map((r) => `${r.name.padEnd(8)} ${('0x' + r.bits.toString(16)).padEnd(20)} ${r.type === 'pred' ? (r.bits ? 'true' : 'false') : r.type.startsWith('f') && r.type !== 'f16' ? registerFloat(r.type, r.bits) : String(r.bits)}${r.changed ? '  *' : ''}`).join('\n');
}

/** `info breakpoints`: breakpoints, memory watchpoints and register watchpoints in one table. */
export function pointsTable(e: Engine): string {
  const s = sessionOf(e);
  const rows = [...e.breakpoints().flatMap((b) => [`${String(b.id).padEnd(4)}breakpoint  ${b.enabled ? 'y' : 'n'}  ${b.spec}  (${b.pending ? 'pending: not in this launch' : `${b.locations.length} location${b.locations.length === 1 ? '' : 's'}`}${b.hits ? `, hit ${b.hits} time${b.hits === 1 ? '' : 's'}` : ''})`,
    // several locations (an inlined function's copies, a line in two places): gdb's N.1, N.2 rows
    ...(b.locations.length > 1 ? b.locations.map((l, i) => `${`${b.id}.${i + 1}`.padEnd(16)}${b.enabled ? 'y' : 'n'}  in ${printName(l.inlined ?? l.function)} at ${l.file ? baseName(l.file) : '??'}:${l.line} (pc ${l.pc}${l.inlined ? ` of ${printName(l.function)}` : ''})`) : [])]),
    ...s.watchpoints().map((w) => `${String(w.id).padEnd(4)}${w.kind === 'write' ? 'watchpoint ' : w.kind === 'read' ? 'rwatch     ' : 'awatch     '}  ${w.enabled ? 'y' : 'n'}  ${w.expr}  (${w.space} 0x${w.address.toString(16)}, ${w.size} bytes${w.hits ? `, hit ${w.hits} time${w.hits === 1 ? '' : 's'}` : ''})`),
    ...s.registerWatchpoints().map((w) => `${String(w.id).padEnd(4)}watchpoint  ${w.enabled ? 'y' : 'n'}  ${w.expr}  (in registers of block (${w.block.join(',')}) thread (${w.thread.join(',')})${w.hits ? `, hit ${w.hits} time${w.hits === 1 ? '' : 's'}` : ''})`)];
  return rows.length ? ['Num Type        Enb What', ...rows].join('\n') : 'No breakpoints or watchpoints.';
}

/** `info threads|warps|lanes`: the resident warps, the focused one marked, lanes spelled out for `lanes`. */
export function threadsTable(e: Engine, what: string): string {
  const s = sessionOf(e);
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
    out.push(`${mine} block (${w.block.join(',')}) warp ${w.warp}: ${printName(w.function)} ${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`}  [${summary}]${lanes}`);
  }
  return out.join('\n');
}

/** `info line`. */
export function lineText(e: Engine): string {
  const s = sessionOf(e);
  const w = s.where();
  // gdb names the function as a symbol: demangled, with its parameters
  const fn = signatureName(w.function);
  return w.file ? `Line ${w.line} of "${w.file}" starts at ${fn} instruction ${w.pc}.` : `${fn} instruction ${w.pc}`;
}

/** `list [LINE | FUNC | A,B]`: source around the current line (PTX when there is none), of a function, or a range. */
export function listText(e: Engine, args: string): string {
  const s = sessionOf(e);
  const ranged = listRange(e, args);
  if (ranged !== undefined) return ranged;
  // at a host call: the program's own source around the call's line (gdb lists the host frame)
  const host = e.hostStop();
  const hostSrc = host && !args.trim() ? e.hostSource() : undefined;
  if (host && hostSrc && host.sourceLine !== undefined) {
    const at = host.sourceLine;
    const out: string[] = [];
    for (let l = Math.max(1, at - 5); l <= Math.min(hostSrc.lines.length, at + 5); l++) out.push(`${l === at ? '=>' : '  '}${String(l).padStart(5)}\t${hostSrc.lines[l - 1]}`);
    return out.join('\n');
  }
  if (host && !args.trim()) return noDeviceThread(host);
  const w = s.where();
  const lines = sourceLines(e, w.file);
  const center = args.trim() ? num(args, 'list') : w.line;
  if (!lines) {
    // PTX listing around the current instruction
    const prog = s.program.functions.get(w.function);
    if (!prog) return 'No source.';
    const ptxLines = e.ptxSourceLines();
    const at = e.ptxLine(w.function, w.pc) || 1;
    const out: string[] = [];
    for (let l = Math.max(1, at - 5); l <= Math.min(ptxLines.length, at + 5); l++) out.push(`${l === at ? '=>' : '  '}${String(l).padStart(6)}  ${ptxLines[l - 1]}`);
    return out.join('\n');
  }
  if (center < 1 || center > lines.length) throw new EngineError(`Line number ${center} out of range; "${baseName(w.file ?? '')}" has ${lines.length} lines.`);
  const out: string[] = [];
  for (let l = Math.max(1, center - 5); l <= Math.min(lines.length, center + 5); l++) out.push(`${l === w.line ? '=>' : '  '}${String(l).padStart(5)}\t${lines[l - 1]}`);
  return out.join('\n');
}

/** x/Nfu ADDR-EXPR: examine memory (gdb). Formats: x (hex words), d, u, f (float), b/h/w/g sizes. */
export function examineText(e: Engine, args: string): string {
  const s = sessionOf(e);
  const ins = /^\/(\d*)i\s+(.+)$/.exec(args.trim());
  if (ins) return examineInstructions(e, ins[1] ? Number(ins[1]) : 1, ins[2]!);
  const str = /^\/s\s+(.+)$/.exec(args.trim());
  if (str) {
    const v = evaluateExpression(s.debugInfo(), s.threadView(), str[1]!, consoleState(e).history);
    if (v.type.endsWith('*') && v.bytes && v.bytes.length === 8) {
      const sp = /@(\w+)/.exec(v.type);
      return examineString(e, (sp ? sp[1] : 'generic') as 'generic', new DataView(v.bytes.buffer, v.bytes.byteOffset, 8).getBigUint64(0, true));
    }
    if (v.address === undefined || v.space === undefined) throw new EngineError(`cannot take the address of '${str[1]}'`);
    return examineString(e, v.space as 'generic', v.address);
  }
  const m = /^\/(\d*)([xduftcb]?)([bhwg]?)\s+(.+)$/.exec(args.trim()) ?? /^()()()(.+)$/.exec(args.trim());
  if (!m || !m[4]) throw new EngineError('usage: x/NFU EXPR   e.g. x/8xw &tile[0], x/4f *(@shared float *)0x10');
  const count = m[1] ? Number(m[1]) : 1;
  const fmt = m[2] || 'x';
  const unit = m[3] || (fmt === 'f' ? 'w' : 'w');
  const size = { b: 1, h: 2, w: 4, g: 8 }[unit] ?? 4;
  const v = evaluateExpression(s.debugInfo(), s.threadView(), m[4], consoleState(e).history);
  // x takes the value of a pointer expression, or the address of an lvalue array
  let space = v.space as SpaceName | undefined;
  let address = v.address;
  if (v.type.endsWith('*') && v.bytes && v.bytes.length === 8) {
    address = new DataView(v.bytes.buffer, v.bytes.byteOffset, 8).getBigUint64(0, true);
    const sp = /@(\w+)/.exec(v.type);
    space = (sp ? sp[1] : 'generic') as typeof space;
  }
  if (address === undefined || space === undefined) throw new EngineError(`cannot take the address of '${m[4]}'`);
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

/** `watch`/`rwatch`/`awatch EXPR`: a memory watchpoint, or a register one for a value that lives in a register. */
export function watchCommand(e: Engine, args: string, name: string): string {
  const s = sessionOf(e);
  // -l / -location: watch the address the expression names now (our watchpoints always do)
  const expr = args.trim().replace(/^-(?:l|location)\s+/, '');
  // gdb labels such a watchpoint `-location EXPR`
  const label = expr === args.trim() ? expr : `-location ${expr}`;
  if (!expr) throw new EngineError(`usage: ${name} EXPR`);
  const kind: WatchKind = name === 'rwatch' ? 'read' : name === 'awatch' ? 'access' : 'write';
  // a register (`$r5`), or a local that lives in one: watch the register of the focused thread
  const regName = /^[$%][a-z]+\d*$/i.test(expr) && s.threadView().registerType(expr.replace(/^\$/, '%')) !== undefined ? expr.replace(/^\$/, '%') : undefined;
  // a memory lvalue goes to the engine's watch; raw ranges (`@shared 0x40`) too
  const v = regName || /^@/.test(expr) ? undefined : evaluateExpression(s.debugInfo(), s.threadView(), expr, consoleState(e).history);
  const reg = regName ?? v?.register;
  if (reg !== undefined) {
    if (kind !== 'write') throw new EngineError(`${name} needs memory: ${expr} lives in register ${reg} (use watch to stop when it changes)`);
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
  return watchText(e.addWatch(expr, kind, consoleState(e).history, label));
}

/** `print EXPR`, `print/lanes EXPR`, `print/block EXPR`. */
export function printText(e: Engine, args: string): string {
  const s = sessionOf(e);
  const m = /^\/(lanes|block)(?:\/([xduotc]))?\s+(.*)$/s.exec(args.trim());
  if (!m && isAssignment(args.replace(/^\s*\/\w+/, ''))) return assignText(e, args, 'print'); // a write: forks a what-if timeline
  if (!m) {
    // gdb's `set print repeats|elements|pretty|address` and `set width`
    const text = printExpression(s.debugInfo(), s.threadView(), args, consoleState(e).history, printOptions(e));
    return wrapText(text, consoleState(e).print.width);
  }
  return printLanes(e, m[1] === 'lanes' ? 'warp' : 'block', m[3]!, m[2]);
}

/**
 * The warp view of a value (engine lanes()): EXPR in each lane of the focused warp (or thread of
 * the block). Inactive lanes (diverged away) still show their value, marked; exited ones have
 * none. Runs of threads with the same value are folded in the block view.
 */
function printLanes(e: Engine, scope: 'warp' | 'block', expr: string, radix: string | undefined): string {
  return lanesText(e, e.lanes(expr, scope, radix), scope, expr);
}


function num(text: string, what: string): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : Number(t);
  if (!t || !Number.isInteger(n)) throw new EngineError(`${what}: expected a number, got '${text.trim()}'`);
  return n;
}

/** `info locals|args|variables` of the focused thread's selected frame. */
export function localsText(e: Engine, which: 'locals' | 'args' | 'variables'): string {
  if (which !== 'variables') noFrameAtHost(e, which === 'locals' ? 'locals' : 'arguments');
  const s = sessionOf(e);
  // gdb's print settings apply to these listings too
  const text = which === 'variables' ? infoVariables(s.debugInfo(), s.threadView(), printOptions(e))
    : (which === 'locals' ? infoLocals : infoArgs)(s.debugInfo(), s.threadView(), printOptions(e));
  return wrapText(text, consoleState(e).print.width);
}

/** The value the last `finish` saw returned, as gdb prints it; undefined when none (void, or not a forward finish). */
export function returnValueText(e: Engine): string | undefined {
  const s = sessionOf(e);
  const r = s.lastReturn;
  return r ? printReturnValue(s.debugInfo(), s.threadView(), r.function, r.bytes, consoleState(e).history) : undefined;
}
