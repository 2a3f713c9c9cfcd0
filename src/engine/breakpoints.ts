/**
 * Breakpoint specifications → instruction locations:
 *   FILE:LINE, LINE (current file)   the line's first instruction in each run of that line
 *   FUNCTION                         instruction 0 of a function (PTX name, or the plain C++ name
 *                                    of a mangled one: `saxpy` finds `_Z5saxpyifPfS_`)
 *   ptx:LINE                         the instruction on that line of the .ptx file
 *   *N                               instruction N of the current function
 * plus an optional condition: `if threadIdx.x == 3 && blockIdx.x == 1` (or `thread (3,0,0)`,
 * `block (1,0,0)`) is answered from thread coordinates, from the log alone; any other expression
 * (`if p == 41 && h != checks[p]`) is evaluated per thread at the candidate steps.
 */
import type { FunctionDecl, Statement } from '../ptx/ast.js';
import { LineMap } from '../ptx/diagnostics.js';
import { namesFunction, plainName } from '../ptx/names.js';
import type { CodeIndex } from './code-index.js';
import type { Program, ProgFunction } from '../ptx/resolve.js';
import { inlineChain, inlinedCopies, inlineStarts, outerKeys } from './inlined.js';
import { baseName } from './sources.js';
import type { Dim3 } from './types.js';

export interface Condition {
  block?: Dim3 | undefined;
  thread?: Dim3 | undefined;
  /** Partial constraints: component → value, for threadIdx.x == 3 style conditions. */
  tid: (number | undefined)[];
  bid: (number | undefined)[];
  /**
   * Any other condition, as the expression evaluator reads it (`p == 41 && h != checks[p]`),
   * evaluated per thread at the candidate step; the coordinate terms above pre-filter lanes.
   */
  expr?: string | undefined;
}

export class BreakpointError extends Error {}

export interface ResolvedSpec {
  globals: number[];
  /** Per location (global instruction): innermost inlined frames hidden when it is hit (inlined.ts). */
  hide: Map<number, number>;
  condition: Condition | undefined;
  spec: string;
}

// plain names are the front end's (exec and the engine both name kernels)
export { plainName };

export function parseCondition(text: string): Condition {
  const c: Condition = { tid: [], bid: [] };
  const dims = (s: string): Dim3 => {
    const inner = s.replace(/[()\s]/g, '');
    const parts = inner.split(',').map(Number);
    if (!inner || parts.length > 3 || parts.some((x) => !Number.isInteger(x) || x < 0)) throw new BreakpointError(`bad coordinates '${s}': expected (x), (x,y) or (x,y,z)`);
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
  };
  let rest = text.trim();
  const blk = /block\s*(\([^)]*\))/.exec(rest);
  if (blk) { c.block = dims(blk[1]!); rest = rest.replace(blk[0], ''); }
  const thr = /thread\s*(\([^)]*\))/.exec(rest);
  if (thr) { c.thread = dims(thr[1]!); rest = rest.replace(thr[0], ''); }
  // top-level && terms: coordinate tests are answered from the log alone, the rest by evaluation
  // (with || or parentheses around && the whole text is one expression)
  const simple = !/\|\||[()]/.test(rest);
  const other: string[] = [];
  for (const term of (simple ? rest.split('&&') : [rest]).map((t) => t.trim()).filter(Boolean)) {
    const m = /^(threadIdx|blockIdx|\$tid|%tid|\$ctaid|%ctaid)\.([xyz])\s*==\s*(\d+)$/.exec(term);
    if (!m) { other.push(term); continue; }
    const comp = 'xyz'.indexOf(m[2]!);
    const isTid = m[1] === 'threadIdx' || m[1]!.endsWith('tid');
    (isTid ? c.tid : c.bid)[comp] = Number(m[3]);
  }
  if (other.length) c.expr = other.join(' && ');
  return c;
}

export function conditionHolds(c: Condition, block: Dim3, thread: Dim3): boolean {
  if (c.block && (c.block[0] !== block[0] || c.block[1] !== block[1] || c.block[2] !== block[2])) return false;
  if (c.thread && (c.thread[0] !== thread[0] || c.thread[1] !== thread[1] || c.thread[2] !== thread[2])) return false;
  for (let i = 0; i < 3; i++) {
    if (c.tid[i] !== undefined && c.tid[i] !== thread[i]) return false;
    if (c.bid[i] !== undefined && c.bid[i] !== block[i]) return false;
  }
  return true;
}

export function resolveSpec(text: string, code: CodeIndex, ptxText: string, current: { file: string | undefined; fn: string }): ResolvedSpec {
  let spec = text.trim();
  let condition: Condition | undefined;
  const ifAt = spec.search(/\s+if(\s+|$)/);
  if (ifAt >= 0) {
    const cond = spec.slice(ifAt).replace(/^\s+if\s*/, '');
    if (!cond.trim()) throw new BreakpointError('"if" needs a condition, e.g. if threadIdx.x == 3');
    condition = parseCondition(cond);
    spec = spec.slice(0, ifAt).trim();
  }
  if (!spec) throw new BreakpointError('usage: break FILE:LINE | LINE | FUNCTION | ptx:LINE | *INSTR [if COND]');
  const globals: number[] = [];
  const hide = new Map<number, number>();
  let m: RegExpExecArray | null;
  if ((m = /^ptx:(\d+)$/.exec(spec))) {
    const want = Number(m[1]);
    const lm = new LineMap(ptxText);
    for (const prog of code.functions) {
      prog.instrs.forEach((ins, pc) => {
        if (lm.position(ins.src.span.start).line === want) globals.push(code.global(prog.name, pc));
      });
    }
    if (!globals.length) {
      const fn = notLoaded(code).find((d) => lm.position(d.span.start).line <= want && want <= lm.position(d.span.end).line);
      if (fn) throw new BreakpointError(`PTX line ${want} is in ${fn.name}, which kernel ${code.machine.launch.kernel} does not reach: only the code the launched kernel can reach is loaded`);
      throw new BreakpointError(`no PTX instruction on line ${want} of the .ptx file`);
    }
  } else if ((m = /^\*(\d+)$/.exec(spec))) {
    const g = code.global(current.fn, Number(m[1]));
    const prog = code.functions.find((f) => f.name === current.fn);
    if (g < 0 || !prog || Number(m[1]) >= prog.instrs.length) throw new BreakpointError(`no instruction ${m[1]} in ${current.fn}`);
    globals.push(g);
  } else if ((m = /^(?:(.+):)?(\d+)$/.exec(spec))) {
    const file = m[1];
    const asked = Number(m[2]);
    const wantFile = file ?? current.file;
    // a line without code moves to the next line that has some, as gdb does; an inlined call's
    // line has the first instruction of the inlined code (its frames hidden there, as in gdb)
    const sites = lineSites(code);
    let line = asked;
    let next = Infinity;
    for (const s of sites) if (s.line >= asked && s.line < next && inFileIndex(code, s, wantFile)) next = s.line;
    // code the launched kernel does not reach is not loaded: a line there must not move on to the
    // next line of loaded code (a breakpoint somewhere else), nor read as a line without code
    const skipped = notLoadedLine(code, asked, next, wantFile);
    if (skipped) throw new BreakpointError(`line ${skipped.line}${file ? ` of ${file}` : ''} is in ${skipped.fn}, which kernel ${code.machine.launch.kernel} does not reach: only the code the launched kernel can reach is loaded`);
    if (next !== Infinity) line = next;
    for (const s of sites) {
      if (s.line !== line || !inFileIndex(code, s, wantFile) || hide.has(s.g)) continue;
      globals.push(s.g);
      hide.set(s.g, s.hide);
    }
    if (!globals.length) throw new BreakpointError(`no code for line ${asked}${file ? ` in ${file}` : ''} or after it`);
  } else {
    const prog = code.functions.find((f) => f.name === spec) ?? code.functions.find((f) => namesFunction(spec, f.name));
    // the function's inlined copies: one location each (gdb: one breakpoint, several locations)
    for (const f of code.functions) {
      for (const c of inlinedCopies(code.machine.program, f, (name) => name === spec || namesFunction(spec, name))) {
        const g = code.global(f.name, c.pc);
        globals.push(g);
        hide.set(g, c.level);
      }
    }
    if (!prog && globals.length) return { globals, hide, condition, spec: text.trim() };
    if (!prog) {
      const fn = notLoaded(code).find((d) => namesFunction(spec, d.name));
      if (fn) throw new BreakpointError(`function "${spec}" is not reachable from kernel ${code.machine.launch.kernel}: only the code the launched kernel can reach is loaded`);
      throw new BreakpointError(`function "${spec}" not defined`);
    }
    // like gdb, stop after the prologue: at the first line that is not the declaration line
    const entryLine = prog.locLine[0] ?? 0;
    let pc = 0;
    for (let i = 1; i < prog.instrs.length; i++) {
      const l = prog.locLine[i] ?? 0;
      if (l !== 0 && l !== entryLine && l !== (prog.locLine[i - 1] ?? 0)) { pc = i; break; }
    }
    // gdb stops there with the inlined calls that begin at it hidden: the function's own line
    const g = code.global(prog.name, pc);
    globals.unshift(g);
    hide.set(g, inlineStarts(code.machine.program, prog, pc));
  }
  return { globals, hide, condition, spec: text.trim() };
}

interface LineSite { readonly g: number; readonly line: number; readonly file: number; readonly hide: number }
const siteCache = new WeakMap<CodeIndex, LineSite[]>();

/**
 * Where each source line's code begins: the first instruction of each run of a line, and, at the
 * start of an inlined block, the lines of its call sites (hide = the inlined frames inside it).
 */
function lineSites(code: CodeIndex): LineSite[] {
  let out = siteCache.get(code);
  if (out) return out;
  out = [];
  const program = code.machine.program;
  for (let g = 0; g < code.line.length; g++) {
    const fn = code.functions[code.fnIndex[g]!]!;
    const pc = code.pc[g]!;
    if (code.lineStart[g] && !sameInlinedLine(program, fn, pc)) out.push({ g, line: code.line[g]!, file: code.file[g]!, hide: 0 });
    const starts = inlineStarts(program, fn, pc);
    const c = starts ? inlineChain(program, fn, pc) : undefined;
    if (!c) continue;
    for (let j = 1; j <= starts; j++) {
      const at = j < c.frames.length ? c.frames[j]! : c.outer;
      if (at.line > 0) out.push({ g, line: at.line, file: at.file, hide: j });
    }
  }
  out = firstInBlock(code, out);
  siteCache.set(code, out);
  return out;
}

/**
 * A call site's line where the same block (function and inlined copy) has that line's code
 * anyway: gdb keeps one location per block for a line, so the call site adds none.
 */
function firstInBlock(code: CodeIndex, sites: LineSite[]): LineSite[] {
  const program = code.machine.program;
  const blockOf = (s: LineSite): string => {
    const fi = code.fnIndex[s.g]!;
    const k = outerKeys(inlineChain(program, code.functions[fi]!, code.pc[s.g]!));
    return `${fi}|${s.line}|${k.slice(0, k.length - s.hide).at(-1) ?? ''}`;
  };
  const own = new Set(sites.filter((s) => s.hide === 0).map(blockOf));
  return sites.filter((s) => s.hide === 0 || !own.has(blockOf(s)));
}

/** The instruction before `pc` is in the same inlined copy as `pc`'s innermost frame, at the same line: not a new run of it. */
function sameInlinedLine(program: Program, fn: ProgFunction, pc: number): boolean {
  const c = inlineChain(program, fn, pc);
  const p = pc > 0 ? inlineChain(program, fn, pc - 1) : undefined;
  if (!c?.frames.length || !p) return false;
  const n = c.frames.length;
  const k = p.frames.length - n;
  if (k < 0) return false;
  const f = c.frames[0]!, q = p.frames[k]!;
  return f.id === q.id && f.line === q.line && f.file === q.file && c.outer.line === p.outer.line;
}

function inFileIndex(code: CodeIndex, s: LineSite, want: string | undefined): boolean {
  const f = s.file >= 0 ? code.machine.program.files.get(s.file) : undefined;
  return !(want !== undefined && f !== undefined && f !== want && baseName(f) !== baseName(want));
}

/** The line, file and inlined function a location shows when hit with `hide` inlined frames hidden. */
export function siteLine(code: CodeIndex, g: number, hide: number): { line: number; file: string | undefined; inlined?: string } {
  const c = inlineChain(code.machine.program, code.functions[code.fnIndex[g]!]!, code.pc[g]!);
  const inlined = c && hide < c.frames.length ? { inlined: c.frames[hide]!.function } : {};
  if (hide > 0 && c) {
    const at = hide < c.frames.length ? c.frames[hide]! : c.outer;
    return { line: at.line, file: at.file >= 0 ? code.machine.program.files.get(at.file) : undefined, ...inlined };
  }
  return { line: code.line[g]!, file: code.fileName(g), ...inlined };
}

/** The module's function bodies that are not loaded (the launched kernel cannot reach them). */
function notLoaded(code: CodeIndex): FunctionDecl[] {
  const loaded = new Set(code.functions.map((f) => f.name));
  return code.machine.program.bodies.filter((d) => !loaded.has(d.name));
}

/**
 * The first source line from `from` up to (not including) `before` that has code in a function
 * that is not loaded, in `file` (any file when undefined); reads those bodies' `.loc` directives
 * (parsing a deferred body, resolving nothing).
 */
function notLoadedLine(code: CodeIndex, from: number, before: number, file: string | undefined): { line: number; fn: string } | undefined {
  const files = code.machine.program.files;
  const inFile = (index: number): boolean => {
    const f = files.get(index);
    return file === undefined || f === undefined || f === file || baseName(f) === baseName(file);
  };
  let best: { line: number; fn: string } | undefined;
  const walk = (fn: string, body: readonly Statement[]): void => {
    for (const st of body) {
      if (st.kind === 'block') walk(fn, st.body);
      else if (st.kind === 'loc' && st.line >= from && st.line < before && (best === undefined || st.line < best.line) && inFile(st.file)) best = { line: st.line, fn };
    }
  };
  for (const d of notLoaded(code)) walk(plainName(d.name) === d.name ? d.name : `${plainName(d.name)} (${d.name})`, d.body ?? []);
  return best;
}

/**
 * A hit count: stop only on the hits whose ordinal in the recording (1 = the first hit, counted
 * from the start whatever the direction, so the same hit is "the 3rd" going back and forth)
 * satisfies `op n`. Written `N` or `>=N` (the Nth hit and later), `>N`, `==N`, `%N` (every Nth).
 */
export interface HitCondition {
  readonly op: '>=' | '>' | '==' | '%';
  readonly n: number;
}

export function parseHitCondition(text: string): HitCondition {
  const m = /^\s*(>=|>|==|=|%)?\s*(\d+)\s*$/.exec(text);
  if (!m) throw new BreakpointError(`bad hit count '${text}': use N, >=N, >N, ==N or %N`);
  const op = m[1] === '=' ? '==' : (m[1] ?? '>=') as HitCondition['op'];
  const n = Number(m[2]);
  if (op === '%' && n === 0) throw new BreakpointError(`bad hit count '${text}': %0`);
  return { op, n };
}

export function hitCountHolds(h: HitCondition, ordinal: number): boolean {
  switch (h.op) {
    case '>=': return ordinal >= h.n;
    case '>': return ordinal > h.n;
    case '==': return ordinal === h.n;
    case '%': return ordinal % h.n === 0;
  }
}
