/**
 * gdb inspection commands beyond print: whatis/ptype, display, disassemble and x/i, x/s, list of a
 * function or a range, info cuda kernels/blocks, and the backtrace with source names and argument
 * values. Each takes the session and the argument text and returns the reply text.
 */
import { coordsOf } from '../../exec/launch.js';
import { WarpState } from '../../exec/state.js';
import { intValue } from '../print/arith.js';
import { T } from '../print/ctypes.js';
import { describeType, evaluateExpression, functionSignature, PrintError, printExpression, variableTree } from '../print/index.js';
import type { Session } from '../session.js';
import { EngineError } from '../errors.js';
import { baseName } from '../sources.js';
import { demangledName, namesFunction, printName, signatureName } from '../../ptx/names.js';
import { MachineThreadView } from '../threadview.js';
import { type Engine, sessionOf } from '../api.js';
import { noDeviceThread } from '../api/program.js';
import { consoleState, ctx, type Display, printOptions } from './state.js';
import { wrapText } from './wrap.js';
import type { SpaceName } from '../types.js';

export function whatis(e: Engine, expr: string, expand: boolean): string {
  const s = sessionOf(e);
  const c = ctx(e);
  if (!expr.trim()) throw new EngineError(`usage: ${expand ? 'ptype' : 'whatis'} EXPR`);
  return describeType(c.info, s.threadView(), expr.trim(), expand, c.history);
}

export function displayLines(e: Engine, list: readonly Display[]): string[] {
  const s = sessionOf(e);
  const c = ctx(e);
  return list.map((d) => {
    try {
      // gdb's print settings (`set print pretty|repeats|elements|address`, `set width`) apply as in print
      const text = printExpression(c.info, s.threadView(), d.expr, undefined, printOptions(e)).replace(/^\$\d+ = /, '');
      return wrapText(`${d.id}: ${d.expr} = ${text}`, consoleState(e).print.width);
    } catch (e) {
      if (e instanceof PrintError) return `${d.id}: ${d.expr} = <${e.message}>`;
      throw e;
    }
  });
}

/** PTX of a function (the current one by default), the current instruction marked `=>`. */
export function disassemble(e: Engine, arg: string): string {
  const s = sessionOf(e);
  const w = s.where();
  const name = arg.trim() || w.function;
  const prog = s.program.functions.get(name) ?? [...s.program.functions.values()].find((f) => namesFunction(name, f.name));
  if (!prog) throw new EngineError(notLoaded(s, name) ?? `No function "${name}".`);
  const lines = [`Dump of PTX for function ${signatureName(prog.name)}:`];
  prog.instrs.forEach((ins, pc) => {
    const here = prog.name === w.function && pc === w.pc;
    lines.push(`${here ? '=> ' : '   '}${String(pc).padStart(5)}: ${instructionText(s, ins)}`);
  });
  lines.push('End of PTX dump.');
  return lines.join('\n');
}

/** `x/Ni ADDR`: N PTX instructions of the current function from instruction ADDR (e.g. $pc). */
export function examineInstructions(e: Engine, count: number, expr: string): string {
  const s = sessionOf(e);
  const c = ctx(e);
  const w = s.where();
  const prog = s.program.functions.get(w.function);
  if (!prog) throw new EngineError('No function here.');
  const v = evaluateExpression(c.info, s.threadView(), expr, c.history);
  if (!v.bytes) throw new EngineError(`cannot evaluate '${expr}'`);
  let start = 0;
  for (let i = Math.min(8, v.bytes.length) - 1; i >= 0; i--) start = start * 256 + v.bytes[i]!;
  if (start >= prog.instrs.length) throw new EngineError(`no instruction ${start} in ${prog.name} (it has ${prog.instrs.length})`);
  const out: string[] = [];
  for (let pc = start; pc < Math.min(prog.instrs.length, start + count); pc++) {
    out.push(`${pc === w.pc ? '=> ' : '   '}${String(pc).padStart(5)} <${prog.name}+${pc}>: ${instructionText(s, prog.instrs[pc]!)}`);
  }
  c.history.setConvenience('_', intValue(BigInt(Math.min(prog.instrs.length - 1, start + count - 1)), T.ulong));
  return out.join('\n');
}

/** `x/s ADDR`: a NUL-terminated string in memory (at most 200 bytes shown). */
export function examineString(e: Engine, space: SpaceName, address: bigint): string {
  const s = sessionOf(e);
  const view = s.threadView();
  const bytes: number[] = [];
  for (let i = 0; i < 200; i++) {
    const b = view.readMemory(space, address + BigInt(i), 1);
    if (!b) {
      if (i === 0) return `Cannot access memory at ${space} address 0x${address.toString(16)}`;
      break;
    }
    if (b[0] === 0) break;
    bytes.push(b[0]!);
  }
  const text = bytes.map((b) => (b === 0x22 ? '\\"' : b === 0x5c ? '\\\\' : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`)).join('');
  return `${space} 0x${address.toString(16)}:\t"${text}"${bytes.length === 200 ? '...' : ''}`;
}

/** `list FUNC` and `list A,B`: source of a function, or of a line range. */
export function listRange(e: Engine, arg: string): string | undefined {
  const s = sessionOf(e);
  const t = arg.trim();
  const w = s.where();
  const range = /^(\d+)?\s*,\s*(\d+)?$/.exec(t);
  let file = w.file;
  let from: number;
  let to: number;
  if (range && (range[1] || range[2])) {
    from = range[1] ? Number(range[1]) : Math.max(1, Number(range[2]) - 9);
    to = range[2] ? Number(range[2]) : from + 9;
  } else if (/^[A-Za-z_][\w:]*$/.test(t)) {
    const prog = s.program.functions.get(t) ?? [...s.program.functions.values()].find((f) => namesFunction(t, f.name));
    if (!prog) throw new EngineError(notLoaded(s, t) ?? `Function "${t}" not defined.`);
    const lines = [...prog.locLine].filter((l) => l > 0);
    const fi = prog.locFile.find((f) => f >= 0);
    if (!lines.length || fi === undefined) throw new EngineError(`${t} has no source line information.`);
    file = s.program.files.get(fi);
    const first = Math.min(...lines);
    from = Math.max(1, first - 4);
    to = first + 5;
  } else return undefined;
  const src = file !== undefined ? s.sources.get(file)?.lines : undefined;
  if (!src) throw new EngineError('No source file here.');
  if (from < 1 || from > src.length) throw new EngineError(`Line number ${from} out of range; "${baseName(file ?? '')}" has ${src.length} lines.`);
  const out: string[] = [];
  for (let l = from; l <= Math.min(to, src.length); l++) out.push(`${l === w.line && file === w.file ? '=>' : '  '}${String(l).padStart(5)}\t${src[l - 1]}`);
  return out.join('\n');
}

/** cuda-gdb's `info cuda kernels`: the one launch of this recording. */
export function infoCudaKernels(e: Engine): string {
  const s = sessionOf(e);
  const l = s.launch;
  const m = s.machine;
  const total = l.grid[0] * l.grid[1] * l.grid[2];
  const state = s.position() >= s.total ? (s.faultMessage ? 'faulted' : 'finished') : 'running';
  return [
    '  Kernel Dev Grid Status    SMs Mask   GridDim      BlockDim     Invocation',
    `*      0   0    1 ${state.padEnd(9)} 0x00000001 (${l.grid.join(',')})`.padEnd(49) + ` (${l.block.join(',')})`.padEnd(13) + ` ${displayName(s, l.kernel)}(...)`,
    `  ${total} block${total === 1 ? '' : 's'}: ${m.resident.length} resident, ${Math.max(0, m.nextCta - m.resident.length)} retired, ${total - m.nextCta} not started`,
  ].join('\n');
}

/** cuda-gdb's `info cuda blocks`: every block with its state, the focused one marked. */
export function infoCudaBlocks(e: Engine): string {
  const s = sessionOf(e);
  const l = s.launch;
  const m = s.machine;
  const total = l.grid[0] * l.grid[1] * l.grid[2];
  const focus = s.focusBlockId();
  const rows = ['  BlockIdx  State       Warps (running/barrier/exited)'];
  const show = Math.min(total, 256);
  for (let id = 0; id < show; id++) {
    const c = m.resident.find((r) => r.id === id);
    let state: string;
    let warps = '';
    if (c) {
      let run = 0, bar = 0, done = 0;
      for (const w of c.warps) { if (w.state === WarpState.Exited) done++; else if (w.state === WarpState.AtBarrier) bar++; else run++; }
      state = 'running';
      warps = `${run}/${bar}/${done}`;
    } else state = id < m.nextCta ? 'retired' : 'not started';
    rows.push(`${id === focus ? '*' : ' '} (${coordsOf(id, l.grid).join(',')})`.padEnd(12) + ` ${state.padEnd(11)} ${warps}`);
  }
  if (total > show) rows.push(`  ... ${total - show} more blocks`);
  return rows.join('\n');
}

/** Backtrace with source-level names and argument values: `#0  axpy (a=2.5, x=-1.875) at kernel.cu:4`. */
export function backtrace(e: Engine): string {
  // at a host call the one frame is the call: no launch's frames (no device thread runs there)
  const host = e.hostStop();
  if (host) return `#0  ${noDeviceThread(host)}`;
  const s = sessionOf(e);
  const c = ctx(e);
  const w = s.where();
  if (!w.frames.length) return 'No stack.';
  const warp = s.focusedWarp();
  return w.frames.map((f) => {
    let args = '';
    // an inlined function's arguments have no location in -lineinfo code
    if (warp && !f.inlined) {
      try {
        const view = new MachineThreadView(s.machine, warp, w.lane, f.level, s.inlineHidden);
        args = variableTree(c.info, view, 0, printOptions(e)).args.map((a) => `${a.name}=${a.value}`).join(', ');
      } catch (e) {
        if (!(e instanceof PrintError)) throw e;
      }
    }
    const at = f.file ? `${baseName(f.file)}:${f.line}` : `pc ${f.pc}`;
    return `${f.level === s.selectedFrame ? '*' : ' '}#${f.level}  ${displayName(s, f.function)} (${args}) at ${at}`;
  }).join('\n');
}

/** The source name of a PTX function: gdb's print name (`scale<float, 4>`) of a mangled one, else DWARF's DW_AT_name, else the name. */
function displayName(s: Session, fn: string): string {
  if (fn.startsWith('_Z') && printName(fn) !== fn) return printName(fn);
  try {
    const f = s.debugInfo().scopes.functions().find((x) => x.linkageName === fn);
    if (f?.name) return f.name;
  } catch (e) {
    if (!(e instanceof PrintError)) throw e;
  }
  return printName(fn);
}


/** An instruction as written; the implied `ret`/`exit` at a closing brace is named as such. */
function instructionText(s: Session, ins: { opcode: string; src: { span: { start: number; end: number } } }): string {
  const text = s.ptxText.slice(ins.src.span.start, ins.src.span.end).replace(/\s+/g, ' ').trim();
  return text === '}' ? `${ins.opcode};   // implied at the closing brace` : text;
}

/**
 * gdb's `info functions [REGEX]`: the loaded functions with source, by file, each as
 * `LINE:\tDEMANGLED;` sorted by name; those without source under "Non-debugging symbols:".
 */
export function functionsText(e: Engine, regex: string): string {
  const s = sessionOf(e);
  let re: RegExp | undefined;
  try {
    re = regex ? new RegExp(regex) : undefined;
  } catch {
    throw new EngineError(`Invalid regexp: ${regex}`);
  }
  const byFile = new Map<string, { line: number; text: string; key: string }[]>();
  const bare: string[] = [];
  for (const f of s.program.functions.values()) {
    // gdb prints the declaration from the debug info; without it, the demangled name
    const full = (s.debugInfo().hasVariables ? functionSignature(s.debugInfo(), f.name, printName(f.name)) : undefined) ?? demangledName(f.name);
    if (re && !re.test(full) && !re.test(f.name)) continue;
    const fi = f.locFile.find((x) => x >= 0);
    const file = fi === undefined ? undefined : s.program.files.get(fi);
    const line = f.locLine.find((l) => l > 0);
    if (file === undefined || line === undefined) { bare.push(full); continue; }
    const rows = byFile.get(file) ?? [];
    rows.push({ line, text: full, key: printName(f.name) });
    byFile.set(file, rows);
  }
  const out = [regex ? `All functions matching regular expression "${regex}":` : 'All defined functions:'];
  for (const [file, rows] of [...byFile].sort((a, b) => a[0].localeCompare(b[0]))) {
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    out.push('', `File ${baseName(file)}:`, ...rows.map((r) => `${r.line}:\t${r.text};`));
  }
  if (bare.length) out.push('', 'Non-debugging symbols:', ...bare.sort());
  return out.join('\n');
}

/** Why a function the module defines has no code here: the launched kernel cannot reach it, so it was not loaded. */
function notLoaded(s: Session, name: string): string | undefined {
  const d = s.program.bodies.find((f) => namesFunction(name, f.name));
  return d ? `Function "${name}" is not reachable from kernel ${s.launch.kernel}: only the code the launched kernel can reach is loaded.` : undefined;
}

/** The `display` expressions after a stop (after a gdb command, or a TUI key). */
export function displaysText(e: Engine): string {
  return displayLines(e, consoleState(e).displays).join('\n');
}
