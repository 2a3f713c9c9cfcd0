/**
 * Inlined frames: nvcc's `-lineinfo` PTX writes `.loc f l c, function_name L, inlined_at f2 l2 c2`
 * for an instruction of an inlined function (L labels its mangled name in `.debug_str`) and where
 * that function was inlined; the site's own `.loc` says which function it is in, and so on outward
 * to the real function. A `-G` build's `.loc` lines carry no `inlined_at`: there the DWARF's
 * DW_TAG_inlined_subroutine scopes (a `__forceinline__` callee) with DW_AT_call_file/line say the
 * same. Per instruction, that chain innermost first, as cuda-gdb shows it (one frame per inlined
 * function).
 */
import type { Program, ProgFunction } from '../ptx/resolve.js';
import type { Statement } from '../ptx/ast.js';
import { DW_AT, type Scope } from '../../dwarf/src/index.js';
import { DebugInfo } from './print/debuginfo.js';

export interface InlinedFrame {
  /** Mangled name from .debug_str (or the label when the string is missing). */
  readonly function: string;
  readonly file: number;
  readonly line: number;
  /** Which inlined copy (the call site, or the DWARF scope): two copies of one function differ. */
  readonly id: string;
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
  if (per === undefined) chains.set(fn, (per = hasInlinedAt(fn) ? build(program, fn) : fromDwarf(program, fn)));
  return per[pc];
}

/** Identity of each frame of a chain, outermost first: a frame is the same copy when it and all outer ones are. */
export function outerKeys(c: InlineChain | undefined): readonly string[] {
  if (!c) return [];
  let out = keyCache.get(c);
  if (out) return out;
  const made: string[] = [];
  let k = '';
  for (let j = c.frames.length - 1; j >= 0; j--) made.push((k += `/${c.frames[j]!.id}`));
  keyCache.set(c, (out = made));
  return out;
}
const keyCache = new WeakMap<InlineChain, readonly string[]>();

/**
 * How many of the innermost inlined frames at `pc` begin there (were not in effect at the
 * instruction before it): the frames gdb hides when it stops at the start of an inlined block,
 * showing the call site instead.
 */
export function inlineStarts(program: Program, fn: ProgFunction, pc: number): number {
  const here = outerKeys(inlineChain(program, fn, pc));
  if (here.length === 0) return 0;
  const before = new Set(pc > 0 ? outerKeys(inlineChain(program, fn, pc - 1)) : []);
  let same = 0;
  while (same < here.length && before.has(here[same]!)) same++;
  return here.length - same;
}

/**
 * The inlined copies of a function `named` (a matcher of mangled names) in `fn`: the first
 * instruction of each copy and its level in the chain there (0 = innermost), as gdb gives
 * `break NAME` one location per inlined copy.
 */
export function inlinedCopies(program: Program, fn: ProgFunction, named: (name: string) => boolean): { pc: number; level: number }[] {
  const out: { pc: number; level: number }[] = [];
  const seen = new Set<string>();
  for (let pc = 0; pc < fn.instrs.length; pc++) {
    const c = inlineChain(program, fn, pc);
    if (!c) continue;
    const keys = outerKeys(c);
    for (let j = 0; j < c.frames.length; j++) {
      const key = keys[c.frames.length - 1 - j]!;
      if (!named(c.frames[j]!.function) || seen.has(key)) continue;
      seen.add(key);
      out.push({ pc, level: j });
    }
  }
  return out;
}

function hasInlinedAt(fn: ProgFunction): boolean {
  const any = (body: readonly Statement[]): boolean =>
    body.some((s) => (s.kind === 'loc' && s.inlinedAt !== undefined) || (s.kind === 'block' && any(s.body)));
  return any(fn.decl.body ?? []);
}

/** Chains from a -G build's DW_TAG_inlined_subroutine scopes (none without DWARF). */
function fromDwarf(program: Program, fn: ProgFunction): (InlineChain | undefined)[] {
  const out: (InlineChain | undefined)[] = new Array<InlineChain | undefined>(fn.instrs.length);
  if (!program.module.items.some((i) => i.kind === 'section' && i.name === '.debug_info')) return out;
  const info = DebugInfo.fromProgram(program);
  try {
    for (let pc = 0; pc < fn.instrs.length; pc++) {
      const addr = info.scopes.instructionAddress(fn.name, pc);
      if (addr === undefined) break;
      const inl = info.scopes.scopesAt(addr).filter((s) => s.kind === 'inlined_subroutine');
      if (inl.length === 0) continue;
      const frames: InlinedFrame[] = [];
      let file = fn.locFile[pc] ?? -1;
      let line = fn.locLine[pc] ?? 0;
      for (const s of inl) {
        frames.push({ function: scopeName(s), file, line, id: `d${s.die.sectionOffset}` });
        file = s.die.udata(DW_AT.call_file) ?? file;
        line = s.die.udata(DW_AT.call_line) ?? 0;
      }
      out[pc] = { frames, outer: { file, line } };
    }
    foldJumps(fn, out);
  } catch (e) {
    // damaged DWARF: no inlined frames (print's DebugInfo reports its own warnings)
    info.warn(`inlined frames: ${e instanceof Error ? e.message : String(e)}`);
  }
  return out;
}

/**
 * nvcc -G enters inlined code by `bra.uni L; L:` carrying the callee's (or the call's) line, just
 * before the DWARF scope begins; ptxas drops such a jump to the next instruction, so in the cubin
 * that line's row and the inlined block start at one address. The jump belongs to the block: the
 * frames of the next instruction down to the one whose line the jump carries (none when it
 * carries the call's own line).
 */
function foldJumps(fn: ProgFunction, out: (InlineChain | undefined)[]): void {
  for (let pc = out.length - 2; pc >= 0; pc--) {
    const ins = fn.instrs[pc]!;
    const next = out[pc + 1];
    const op = ins.operands[0];
    if (out[pc] || !next || ins.opcode !== 'bra' || ins.guard || op?.kind !== 'label' || op.index !== pc + 1) continue;
    const file = fn.locFile[pc] ?? -1, line = fn.locLine[pc] ?? 0;
    const j = next.frames.findIndex((f) => f.file === file && f.line === line);
    if (j >= 0) out[pc] = { frames: next.frames.slice(j), outer: next.outer };
  }
}

/** An inlined scope's function: its mangled (linkage) name where the DWARF has one, as -lineinfo's chains name it. */
function scopeName(s: Scope): string {
  const origin = s.die.ref(DW_AT.abstract_origin);
  return origin?.string(DW_AT.MIPS_linkage_name) ?? origin?.string(DW_AT.linkage_name) ?? s.name ?? '??';
}

function build(program: Program, fn: ProgFunction): (InlineChain | undefined)[] {
  const out: (InlineChain | undefined)[] = new Array<InlineChain | undefined>(fn.instrs.length);
  const names = debugStrings(program);
  /** A source position (file:line:col) inside an inlined function: its name and where it was inlined. */
  const site = new Map<string, { fn: string; label: string; at: { file: number; line: number; column: number } }>();
  const key = (f: number, l: number, c: number): string => `${f}:${l}:${c}`;
  let cur: InlineChain | undefined;
  let n = 0;
  // the resolver's walk, so instruction indices agree
  const walk = (body: readonly Statement[]): void => {
    for (const s of body) {
      if (s.kind === 'loc') {
        if (s.inlinedAt === undefined || s.functionName === undefined) { cur = undefined; continue; }
        site.set(key(s.file, s.line, s.column), { fn: names.get(s.functionName) ?? s.functionName, label: s.functionName, at: s.inlinedAt });
        const frames: InlinedFrame[] = [];
        let at: { file: number; line: number; column: number } = { file: s.file, line: s.line, column: s.column };
        for (let hops = 0; hops < 64; hops++) {
          const here = site.get(key(at.file, at.line, at.column));
          if (here === undefined) break;
          frames.push({ function: here.fn, file: at.file, line: at.line, id: `${here.label}@${here.at.file}:${here.at.line}:${here.at.column}` });
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
