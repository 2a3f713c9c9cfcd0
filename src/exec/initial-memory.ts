/**
 * Memory a thread or CTA starts with besides zeros: module-scope `.local` variables (one per
 * thread at a fixed place, before the kernel's frame) and, in ISA 1.x modules, the initializers
 * of `.shared` and `.local` variables (ISA 1.1 5.3.5; refused from PTX 2.0 on: ptx/space-init.ts).
 * A .shared variable holds its value when each CTA starts; a .local one in every thread, "all
 * ... to the same value", each time its function is entered (a module-scope one when the thread
 * starts). Everything here is computed once per program or machine and cached.
 */
import type { Machine } from './machine.js';
import type { ProgFunction, VarInfo } from '../ptx/resolve.js';
import { Bank } from './memory.js';
import { type Cta, localWritten, type Warp } from './state.js';
import { moduleLocals, writeInit } from './machine/layout.js';
import { isIsa1 } from '../ptx/space-init.js';

/** Bytes `v` initializes: the offset of its storage and what goes there. */
interface Piece {
  readonly off: number;
  readonly bytes: Uint8Array;
}

/** The bytes `v`'s initializer gives, placed at `off`; undefined when it has none. */
function piece(m: Machine, v: VarInfo, off: number): Piece | undefined {
  if (v.decl.init === undefined || v.size <= 0) return undefined;
  const scratch = new Bank(v.size);
  writeInit(m, v, scratch, 0);
  return { off, bytes: scratch.u8.slice(0, v.size) };
}

const ctaCache = new WeakMap<Machine, { shared: Piece[]; locals: Piece[] }>();

function ctaPieces(m: Machine): { shared: Piece[]; locals: Piece[] } {
  let r = ctaCache.get(m);
  if (r === undefined) {
    const shared: Piece[] = [];
    for (const v of m.program.shared) {
      const off = m.sharedOff.get(v);
      const p = off === undefined ? undefined : piece(m, v, off);
      if (p) shared.push(p);
    }
    const locals: Piece[] = [];
    for (const [v, off] of moduleLocals(m.program).offsets) {
      const p = piece(m, v, off);
      if (p) locals.push(p);
    }
    r = { shared, locals };
    ctaCache.set(m, r);
  }
  return r;
}

const frameCache = new WeakMap<Machine, Map<ProgFunction, Piece[]>>();

function framePieces(m: Machine, fn: ProgFunction): Piece[] {
  let byFn = frameCache.get(m);
  if (byFn === undefined) { byFn = new Map(); frameCache.set(m, byFn); }
  let r = byFn.get(fn);
  if (r === undefined) {
    r = [];
    for (const v of fn.frameVars) {
      const p = v.space === 'local' ? piece(m, v, v.frameOffset) : undefined;
      if (p) r.push(p);
    }
    byFn.set(fn, r);
  }
  return r;
}

function writeLocal(w: Warp, lanes: number, base: number, pieces: readonly Piece[]): void {
  for (const p of pieces) {
    for (let l = 0; l < 32; l++) {
      if (((lanes >>> l) & 1) === 0) continue;
      w.local.u8.set(p.bytes, l * w.localStride + base + p.off);
      localWritten(w, l, base + p.off, p.bytes.length);
    }
  }
}

/**
 * A new CTA's initialized memory: its .shared variables' initializers, and in each thread the
 * module-scope .local ones and those of the kernel's frame (its frame is at w.frame).
 */
export function initCtaMemory(m: Machine, cta: Cta): void {
  const { shared, locals } = ctaPieces(m);
  // the common case, nothing to write: decided once per CTA rather than per warp
  if (shared.length === 0 && locals.length === 0 && !isIsa1(m.program.module.version)) return;
  // written before any thread runs, as the CTA's starting state: no thread's store, so the race
  // checker and initcheck are not told (only ISA 1.x modules have these)
  for (const p of shared) {
    cta.shared.u8.set(p.bytes, p.off);
    cta.shared.touch(p.off, p.bytes.length);
  }
  for (const w of cta.warps) {
    if (locals.length > 0) writeLocal(w, w.validMask, 0, locals);
    initFrameMemory(m, w, w.validMask);
  }
}

/** The initialized .local variables of the frame `w` has just entered, in `lanes`. */
export function initFrameMemory(m: Machine, w: Warp, lanes: number): void {
  if (!isIsa1(m.program.module.version)) return; // later modules refuse these initializers
  const pieces = framePieces(m, w.frame.fn.prog);
  if (pieces.length > 0) writeLocal(w, lanes, w.frame.localBase, pieces);
}
