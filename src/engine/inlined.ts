/**
 * Inlined frames of optimized code: nvcc's `-lineinfo` PTX writes `.loc f l c, function_name L,
 * inlined_at f2 l2 c2` for an instruction of an inlined function (L labels its mangled name in
 * `.debug_str`) and where that function was inlined; the site's own `.loc` says which function it
 * is in, and so on outward to the real function. Per instruction, that chain innermost first, as
 * cuda-gdb shows it (one frame per inlined function).
 */
import type { Program, ProgFunction } from '../ptx/resolve.js';
import type { Statement } from '../ptx/ast.js';

export interface InlinedFrame {
  /** Mangled name from .debug_str (or the label when the string is missing). */
  readonly function: string;
  readonly file: number;
  readonly line: number;
}

/** An instruction's inlined functions (innermost first) and the line of the real function's call site. */
export interface InlineChain {
  readonly frames: readonly InlinedFrame[];
  readonly outer: { readonly file: number; readonly line: number };
}

const chains = new WeakMap<ProgFunction, (InlineChain | undefined)[]>();
const strings = new WeakMap<Program, Map<string, string>>();

export function inlineChain(program: Program, fn: ProgFunction, pc: number): InlineChain | undefined {
  let per = chains.get(fn);
  if (per === undefined) chains.set(fn, (per = build(program, fn)));
  return per[pc];
}

function build(program: Program, fn: ProgFunction): (InlineChain | undefined)[] {
  const out: (InlineChain | undefined)[] = new Array<InlineChain | undefined>(fn.instrs.length);
  const names = debugStrings(program);
  /** A source position (file:line:col) inside an inlined function: its name and where it was inlined. */
  const site = new Map<string, { fn: string; at: { file: number; line: number; column: number } }>();
  const key = (f: number, l: number, c: number): string => `${f}:${l}:${c}`;
  let cur: InlineChain | undefined;
  let n = 0;
  // the resolver's walk, so instruction indices agree
  const walk = (body: readonly Statement[]): void => {
    for (const s of body) {
      if (s.kind === 'loc') {
        if (s.inlinedAt === undefined || s.functionName === undefined) { cur = undefined; continue; }
        site.set(key(s.file, s.line, s.column), { fn: names.get(s.functionName) ?? s.functionName, at: s.inlinedAt });
        const frames: InlinedFrame[] = [];
        let at: { file: number; line: number; column: number } = { file: s.file, line: s.line, column: s.column };
        for (let hops = 0; hops < 64; hops++) {
          const here = site.get(key(at.file, at.line, at.column));
          if (here === undefined) break;
          frames.push({ function: here.fn, file: at.file, line: at.line });
          at = here.at;
        }
        cur = { frames, outer: { file: at.file, line: at.line } };
      } else if (s.kind === 'block') walk(s.body);
      else if (s.kind === 'instr') {
        if (n < out.length) out[n] = cur;
        n++;
      }
    }
  };
  walk(fn.decl.body ?? []);
  return out;
}

/** Labelled strings of the module's .debug_str section (`$L__info_string0: .b8 95,90,...,0`). */
function debugStrings(program: Program): Map<string, string> {
  let m = strings.get(program);
  if (m !== undefined) return m;
  m = new Map();
  strings.set(program, m);
  for (const item of program.module.items) {
    if (item.kind !== 'section' || item.name !== '.debug_str') continue;
    for (const label of item.labels) {
      let text = '';
      for (let i = label.datum; i < item.data.length && text.length < 4096; i++) {
        const v = item.data.numAt(i);
        if (v === undefined || item.data.width(i) !== 1 || Number(v) === 0) break;
        text += String.fromCharCode(Number(v));
      }
      m.set(label.name, text);
    }
  }
  return m;
}
