/**
 * Instructions by global pc (Machine.globalBase of the function + index): memory-order flags the
 * checker needs on every access, computed once per launch into a typed array, and the source
 * location / PTX text a report needs, computed on demand.
 *
 * Locations are the user's: code inlined from a CUDA header (-O3 `atomicAdd`) is attributed to
 * its `.loc ... inlined_at` line, and code with no user location at all (-G header wrappers,
 * `.func`s without `.loc`) is flagged F_NOLOC so the checker can name the call site instead.
 */
import { type Machine, ptxText } from '../exec/machine.js';
import type { Statement } from '../ptx/ast.js';
import { factsOf } from '../ptx/instructions.js';
import type { ProgFunction, RInstruction } from '../ptx/resolve.js';

/** A strong (morally atomic) ld/st: .relaxed / .acquire / .release / .acq_rel. */
export const F_STRONG = 1;
/** Release semantics (st.release, atom.release, atom.acq_rel, red.release). */
export const F_RELEASE = 2;
/** Acquire semantics (ld.acquire, atom.acquire, atom.acq_rel). */
export const F_ACQUIRE = 4;
/** Scope .cta: orders only within the CTA; as an atomic it is not atomic across CTAs. */
export const F_SCOPE_CTA = 8;
/** A fence / membar of gpu or system scope (orders with other CTAs). */
export const F_FENCE_WIDE = 16;
/** A fence / membar of CTA scope. */
export const F_FENCE_CTA = 32;
/**
 * The instruction has no location in user source (no `.loc`, or only a CUDA / system header):
 * reports name the nearest call site in user code instead (-G builds wrap atomics and many
 * intrinsics in header functions, and `atom` itself often sits in a `.func` without `.loc`).
 */
export const F_NOLOC = 64;
/** A strong ld/st (volatile = relaxed.sys, relaxed, acquire, release): not ordering lanes of one warp (see shadow.ts M_LDST). */
export const F_LDST = 128;

/** A CUDA toolkit or system header, as opposed to the user's own source. */
export function isSystemPath(p: string): boolean {
  return /^\/usr\/(include|lib)\//.test(p) || (/\/cuda[^/]*\//.test(p) && /\/include\//.test(p));
}

export interface InstrLocation {
  function: string;
  pc: number;
  file: string | null;
  path: string | null;
  line: number;
  ptx: string;
}

function flagsOf(ins: RInstruction): number {
  const op = ins.opcode;
  const mods = ins.mods;
  if (factsOf(op).memory === 'fence') {
    // fence.proxy orders proxies of one thread, not threads
    if (op === 'fence' && mods.some((m) => m.startsWith('proxy'))) return 0;
    return mods.includes('cta') ? F_FENCE_CTA : F_FENCE_WIDE;
  }
  if (op !== 'ld' && op !== 'ldu' && op !== 'st' && op !== 'atom' && op !== 'red') return 0;
  let f = 0;
  for (const m of mods) {
    if (m === 'relaxed') f |= F_STRONG;
    else if (m === 'acquire') f |= F_STRONG | F_ACQUIRE;
    else if (m === 'release') f |= F_STRONG | F_RELEASE;
    else if (m === 'acq_rel') f |= F_STRONG | F_ACQUIRE | F_RELEASE;
    else if (m === 'cta') f |= F_SCOPE_CTA;
  }
  // "ld.volatile has the same memory synchronization semantics as ld.relaxed.sys" (PTX ISA, st
  // likewise); a plain ld/st without a semantic qualifier is weak
  if ((op === 'ld' || op === 'st') && mods.includes('volatile')) f |= F_STRONG;
  if (op === 'ld' || op === 'ldu' || op === 'st') return f & F_STRONG ? f | F_LDST : 0;
  return f;
}

/**
 * Per instruction of `fn`: the `.loc ... inlined_at` (file, line) in effect, or file -1. Header
 * code inlined through several header functions (cuda_pipeline_primitives.h into
 * cuda_pipeline_helpers.h) is followed up its chain of inlined_at sites to the first `user` file.
 */
function inlinedAt(fn: ProgFunction, user: (file: number) => boolean): { file: Int32Array; line: Int32Array } {
  const file = new Int32Array(fn.instrs.length).fill(-1);
  const line = new Int32Array(fn.instrs.length);
  let n = 0;
  let cur: { file: number; line: number } | undefined;
  /** Where each inlined (file:line) was itself inlined. */
  const up = new Map<string, { file: number; line: number }>();
  const outward = (at: { file: number; line: number } | undefined): { file: number; line: number } | undefined => {
    for (let hops = 0; at !== undefined && !user(at.file) && hops < 64; hops++) {
      const next = up.get(`${at.file}:${at.line}`);
      if (next === undefined) break;
      at = next;
    }
    return at;
  };
  // the same walk as the resolver's, so instruction indices agree
  const walk = (body: readonly Statement[]): void => {
    for (const s of body) {
      if (s.kind === 'loc') {
        if (s.inlinedAt) up.set(`${s.file}:${s.line}`, s.inlinedAt);
        cur = outward(s.inlinedAt);
      }
      else if (s.kind === 'block') walk(s.body);
      else if (s.kind === 'instr') {
        if (cur && n < file.length) { file[n] = cur.file; line[n] = cur.line; }
        n++;
      }
    }
  };
  walk(fn.decl.body ?? []);
  return { file, line };
}

export class InstrTable {
  /** Memory-order flags per global pc. */
  readonly flags: Uint8Array;
  /** 1 where the instruction is an asynchronous copy (cp.async into shared memory). */
  readonly asyncCopy: Uint8Array;
  /** User-source location per global pc (file index -1: none). */
  private readonly userFile: Int32Array;
  private readonly userLine: Int32Array;
  private readonly bases: number[] = [];
  private readonly fns: ProgFunction[] = [];

  constructor(private readonly machine: Machine) {
    const n = machine.instructionCount + 1;
    this.flags = new Uint8Array(n);
    this.asyncCopy = new Uint8Array(n);
    this.userFile = new Int32Array(n).fill(-1);
    this.userLine = new Int32Array(n);
    const files = machine.program.files;
    const user = (fi: number): boolean => {
      const path = fi >= 0 ? files.get(fi) : undefined;
      return path !== undefined && !isSystemPath(path);
    };
    const entries = [...machine.globalBase.entries()].sort((a, b) => a[1] - b[1]);
    for (const [name, base] of entries) {
      const fn = machine.program.functions.get(name);
      if (!fn) continue;
      this.bases.push(base);
      this.fns.push(fn);
      const inl = inlinedAt(fn, user);
      fn.instrs.forEach((ins, i) => {
        const fi = fn.locFile[i] ?? -1;
        if (user(fi)) { this.userFile[base + i] = fi; this.userLine[base + i] = fn.locLine[i] ?? 0; }
        else if (user(inl.file[i]!)) { this.userFile[base + i] = inl.file[i]!; this.userLine[base + i] = inl.line[i]!; }
        this.flags[base + i] = flagsOf(ins) | (this.userFile[base + i] === -1 ? F_NOLOC : 0);
        if (factsOf(ins.opcode).memory === 'async-copy' && ins.mods[0] === 'async' && (ins.mods.includes('ca') || ins.mods.includes('cg'))) this.asyncCopy[base + i] = 1;
      });
    }
  }

  /** The function and instruction index of a global pc. */
  locate(gpc: number): { fn: ProgFunction; pc: number } | undefined {
    let lo = 0, hi = this.bases.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.bases[mid]! <= gpc) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (found < 0) return undefined;
    const fn = this.fns[found]!;
    const pc = gpc - this.bases[found]!;
    return pc < fn.instrs.length ? { fn, pc } : undefined;
  }

  /** Where the instruction is in user source (its own `.loc`, else its inlined-at line, else its header `.loc`). */
  location(gpc: number): InstrLocation {
    const at = this.locate(gpc);
    if (!at) return { function: '?', pc: -1, file: null, path: null, line: 0, ptx: '' };
    const { fn, pc } = at;
    let fi = this.userFile[gpc]!;
    let line = this.userLine[gpc]!;
    if (fi < 0) { fi = fn.locFile[pc] ?? -1; line = fn.locLine[pc] ?? 0; }
    const path = fi >= 0 ? this.machine.program.files.get(fi) ?? null : null;
    const ins = fn.instrs[pc];
    return {
      function: fn.name, pc, path, file: path === null ? null : path.split('/').pop() ?? path,
      line, ptx: ins ? ptxText(this.machine.program.module.source, ins.src.span) : '',
    };
  }
}
