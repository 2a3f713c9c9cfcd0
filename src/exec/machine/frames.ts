/**
 * CTAs, warps and call frames of a launch: a new CTA gets its warps, each warp its kernel frame,
 * and every frame its special registers (%tid, %laneid, %lanemask_*, ...) filled in once, when
 * the frame is first made (frames are pooled per warp and function, see newFrame).
 */
import type { Machine } from '../machine.js';
import { initRegisters } from '../compile.js';
import type { CFunction } from '../compiled.js';
import { Bank, GLOBAL_HI } from '../memory.js';
import { Cta, Frame, INITIAL_LOCAL_STRIDE, Warp } from '../state.js';
import { coordsOf } from '../launch.js';
import { moduleLocals, RESERVED_GAP, RESERVED_SMEM } from './layout.js';
import { initCtaMemory } from '../initial-memory.js';

/** A CTA with its shared memory but no warps (checkpoint restore fills them in). */
export function makeCtaShell(mach: Machine, id: number): Cta {
  return new Cta(id, coordsOf(id, mach.launch.grid), new Bank(Math.max(16, mach.sharedSize)), mach.nthreads);
}

/**
 * CTA `id`, ready to run. A finished CTA of this machine is reused when there is one (short
 * kernels spend much of their time making CTAs otherwise); reset makes it equal to a new one.
 * Indexed loops and lookups hoisted out of them: this runs for every CTA of a launch, and for a
 * kernel of short CTAs mostly before V8 has optimized it.
 */
export function makeCta(mach: Machine, id: number): Cta {
  const kfn = mach.fn(mach.kernel.name)!;
  // the kernel's frame follows the module-scope .local variables (from 16: layout.ts moduleLocals)
  const localBase = moduleLocals(mach.program).end;
  let cta = mach.ctaPool.pop();
  if (cta !== undefined) {
    cta.reset(id, coordsOf(id, mach.launch.grid));
    const ws = cta.warps;
    for (let wi = 0; wi < ws.length; wi++) {
      const w = ws[wi]!;
      // a warp that ran its kernel frame alone keeps it, renewed in place (what reset and newFrame would give)
      const f = w.resetKeeping(id * 4096 + wi, kfn);
      if (f === undefined) {
        w.reset(id * 4096 + wi);
        startKernel(w, newFrame(mach, w, kfn), localBase, true);
      } else {
        renew(w, f);
        enter(kfn, f);
        startKernel(w, f, localBase, false);
      }
    }
  } else {
    cta = makeCtaShell(mach, id);
    const nwarps = Math.ceil(mach.nthreads / 32);
    for (let wi = 0; wi < nwarps; wi++) {
      const nl = Math.min(32, mach.nthreads - wi * 32);
      cta.warps.push(new Warp(id * 4096 + wi, cta, wi * 32, nl, mach.mem, INITIAL_LOCAL_STRIDE));
    }
    for (let wi = 0; wi < nwarps; wi++) {
      const w = cta.warps[wi]!;
      startKernel(w, newFrame(mach, w, kfn), localBase, true);
    }
  }
  initCtaMemory(mach, cta);
  return cta;
}

/** Warp `w` of a new CTA at the start of its kernel frame `f` (`push`: f is not yet in w.frames). */
function startKernel(w: Warp, f: Frame, localBase: number, push: boolean): void {
  f.localBase = localBase;
  w.sp = localBase + f.fn.frameSize;
  w.ensureLocal(w.sp + 16);
  f.depth = 1;
  f.spc[0] = 0;
  f.srpc[0] = -1;
  f.smask[0] = w.validMask;
  if (push) w.frames.push(f);
  w.setFrame(f);
  w.pc = 0;
  w.mask = w.validMask;
}

/**
 * A finished CTA goes back to the pool for makeCta, unless a probe that may know CTAs by identity
 * watches (see Probe.ctasById).
 */
export function releaseCta(mach: Machine, cta: Cta): void {
  const p = mach.mem.probe;
  if (p === undefined || p.ctasById === true) mach.ctaPool.push(cta);
}

/** A frame for `fn` on warp `w`, from the warp's pool; special registers filled in. */
export function newFrame(mach: Machine, w: Warp, fn: CFunction): Frame {
  let pool = w.pool.get(fn);
  if (!pool) { pool = []; w.pool.set(fn, pool); }
  let f = pool.pop();
  if (f === undefined) {
    // a frame of the warp's previous CTA, made new, else a new one
    f = takeSpare(w, fn);
    if (f !== undefined) renew(w, f); else f = initFrame(mach, w, fn);
  }
  enter(fn, f);
  return f;
}

/** What every frame of `fn` gets on entry: its initialized registers, an empty SIMT stack. */
function enter(fn: CFunction, f: Frame): void {
  if (fn.regInit.length !== 0) initRegisters(fn, f.u32);
  f.depth = 0;
  f.returned = 0;
}

export function initFrame(mach: Machine, w: Warp, fn: CFunction): Frame {
  const f = new Frame(fn);
  fillSpecials(mach, w, fn, f.u32);
  return f;
}

/** A spare frame of `fn` (any: renew makes it new), taken out of the warp's spares. */
function takeSpare(w: Warp, fn: CFunction): Frame | undefined {
  const s = w.spare;
  for (let i = s.length - 1; i >= 0; i--) {
    const f = s[i]!;
    if (f.fn !== fn) continue;
    s[i] = s[s.length - 1]!;
    s.pop();
    return f;
  }
  return undefined;
}

/**
 * A spare frame (of the warp's previous CTA) made equal to a new frame: the slots instructions
 * write zeroed (renewZero), then %ctaid, the only special that differs between the CTAs a warp
 * object serves. The other slots need nothing: constant slots and the other specials (which
 * depend on the warp's place in its CTA and on the launch alone) are written once, when the
 * frame is made (initFrame, or a checkpoint restore from a frame of a warp at the same place),
 * and never again: instructions write registers and scratch slots only (compile/operands.ts
 * dst), as do calls, syscalls, bar.red and what-if edits (prog.regs).
 */
function renew(w: Warp, f: Frame): void {
  const fn = f.fn;
  f.reset(fn === zeroFn ? zeroRanges : renewZero(fn));
  const u = f.u32;
  const ctaid = w.cta.ctaid;
  const specials = fn.specials;
  for (let i = 0; i < specials.length; i++) {
    const s = specials[i]!;
    if (s.name !== 'ctaid') continue;
    u.set(ctaidRow(s.comp, (ctaid[s.comp] ?? 0) >>> 0), s.base);
  }
}

const zeroByFn = new WeakMap<CFunction, Int32Array>();
/** The function renewZero answered last (every CTA asks for its kernel's, warp after warp): no map lookup per warp. */
let zeroFn: CFunction | undefined = undefined;
let zeroRanges: Int32Array = new Int32Array(0);

/**
 * The word ranges of `fn`'s register file that renew zeroes, as pairs (start, end): every slot
 * but the specials and the constants. Registers come first (compile/slots.ts) and are zero in the
 * template; after them constants, specials and scratch slots are interleaved, and a slot the
 * template holds non-zero is a constant (scratch slots start zero; a zero constant is zeroed
 * again, which changes nothing). Adjacent slots make one range: a kernel of registers and
 * specials alone is one fill.
 */
function renewZero(fn: CFunction): Int32Array {
  let r = zeroByFn.get(fn);
  if (r === undefined) {
    const t = new Uint32Array(fn.template);
    const special = new Set(fn.specials.map((s) => s.base));
    const out: number[] = [];
    for (let base = 0; base < t.length; base += 64) {
      let keep = special.has(base);
      for (let i = base; i < base + 64 && !keep; i++) keep = t[i] !== 0;
      if (keep) continue;
      if (out.length > 0 && out[out.length - 1] === base) out[out.length - 1] = base + 64;
      else out.push(base, base + 64);
    }
    r = Int32Array.from(out);
    zeroByFn.set(fn, r);
  }
  zeroFn = fn;
  zeroRanges = r;
  return r;
}

/**
 * Component `comp` of %ctaid as every lane's 64-bit register slot holds it (value, high word 0),
 * for renew to copy in one call: a lane loop there ran for every warp of every CTA, mostly before
 * V8 optimized it. The rows are refilled only when the CTA changes.
 */
const CTAID_ROWS: Uint32Array[] = [new Uint32Array(64), new Uint32Array(64), new Uint32Array(64)];
const ctaidRowValue: number[] = [0, 0, 0];

function ctaidRow(comp: number, v: number): Uint32Array {
  const row = CTAID_ROWS[comp] ??= new Uint32Array(64);
  if (ctaidRowValue[comp] !== v) {
    for (let l = 0; l < 32; l++) row[2 * l] = v;
    ctaidRowValue[comp] = v;
  }
  return row;
}

/** The special registers of `fn`'s frame on warp `w`, for every lane (a warp's partial lanes too). */
function fillSpecials(mach: Machine, w: Warp, fn: CFunction, u: Uint32Array): void {
  const specials = fn.specials;
  for (let i = 0; i < specials.length; i++) {
    const s = specials[i]!;
    // most specials are the same in every lane: their value is worked out once, not per lane
    const same = !LANE_SPECIALS.has(s.name);
    const v0 = same ? specialValue(mach, w, s.name, s.comp, 0) : 0;
    for (let l = 0; l < 32; l++) {
      u[s.base + 2 * l] = same ? v0 : specialValue(mach, w, s.name, s.comp, l);
      u[s.base + 2 * l + 1] = 0;
    }
  }
}

/** Specials whose value depends on the lane. */
const LANE_SPECIALS: ReadonlySet<string> = new Set(['tid', 'laneid', 'lanemask_eq', 'lanemask_le', 'lanemask_lt', 'lanemask_ge', 'lanemask_gt']);

/** Special register `name` (component `comp`) in lane `l` of warp `w`, as a uint32. */
function specialValue(mach: Machine, w: Warp, name: string, comp: number, l: number): number {
  let v = 0;
  switch (name) {
    case 'tid': {
      // coordsOf(tidBase + l, block), without an array per lane
      const bx = mach.launch.block[0], by = mach.launch.block[1];
      const t = w.tidBase + l;
      v = comp === 0 ? t % bx : comp === 1 ? Math.floor(t / bx) % by : comp === 2 ? Math.floor(t / (bx * by)) : 0;
      break;
    }
    case 'ntid': v = mach.launch.block[comp] ?? 1; break;
    case 'ctaid': v = w.cta.ctaid[comp] ?? 0; break;
    case 'nctaid': v = mach.launch.grid[comp] ?? 1; break;
    case 'laneid': v = l; break;
    case 'warpid': v = Math.floor(w.tidBase / 32); break;
    case 'nwarpid': v = Math.ceil(mach.nthreads / 32); break;
    case 'smid': v = 0; break;
    case 'nsmid': v = 1; break;
    case 'gridid': v = 1; break;
    case 'lanemask_eq': v = (1 << l) >>> 0; break;
    case 'lanemask_le': v = l === 31 ? 0xffffffff : ((1 << (l + 1)) - 1) >>> 0; break;
    case 'lanemask_lt': v = ((1 << l) - 1) >>> 0; break;
    case 'lanemask_ge': v = (0xffffffff << l) >>> 0; break;
    case 'lanemask_gt': v = l === 31 ? 0 : (0xffffffff << (l + 1)) >>> 0; break;
    case 'dynamic_smem_size': v = mach.launch.sharedBytes; break;
    case 'total_smem_size': case 'aggr_smem_size': v = mach.reservedBase >= 0 ? mach.sharedSize - RESERVED_GAP : mach.sharedSize; break;
    case 'reserved_smem_offset_begin': case 'reserved_smem_offset_0': v = mach.reservedBase; break;
    case 'reserved_smem_offset_1': v = mach.reservedBase + RESERVED_SMEM / 2; break;
    case 'reserved_smem_offset_end': v = mach.reservedBase + RESERVED_SMEM; break;
    case 'reserved_smem_offset_cap': v = RESERVED_SMEM; break;
    // the grid-barrier workspace of a cooperative launch: a global address, high word first
    case 'envreg1': v = mach.gridSync ? GLOBAL_HI : 0; break;
    case 'envreg2': v = mach.gridSync; break;
    default: v = 0;
  }
  return v >>> 0;
}
