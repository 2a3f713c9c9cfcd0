/**
 * The per-function register file layout: slots for constants, specials and scratch beyond the
 * function's own registers, and initialized registers' values.
 */
import * as fp from '../float/index.js';
import type { ProgFunction, ROperand } from '../../ptx/resolve.js';
import { typeSize } from '../../ptx/types.js';
import type { CFunction, SpecialSlot } from '../compiled.js';

import type { Layout } from './operands.js';

/** Per-function compiler: allocates register slots for constants and specials. */
export class FnCompiler {
  private nslots: number;
  private readonly consts: { base: number; lo: number; hi: number }[] = [];
  private readonly constMap = new Map<string, number>();
  readonly specials: SpecialSlot[] = [];
  private readonly specialMap = new Map<string, number>();
  private scratchBase = -1;

  constructor(readonly fn: ProgFunction, readonly layout: Layout) {
    this.nslots = fn.regs.length;
  }

  private newSlot(): number {
    return this.nslots++ * 64;
  }

  /** A constant slot holding the 64-bit pattern (lo, hi) in every lane. */
  constBits(lo: number, hi: number): number {
    const key = `${lo >>> 0}:${hi >>> 0}`;
    let b = this.constMap.get(key);
    if (b === undefined) {
      b = this.newSlot();
      this.consts.push({ base: b, lo: lo >>> 0, hi: hi >>> 0 });
      this.constMap.set(key, b);
    }
    return b;
  }

  /** The constant pattern held by slot `base` (made by constBits). */
  constAt(base: number): { lo: number; hi: number } {
    const c = this.consts.find((x) => x.base === base);
    return c ?? { lo: 0, hi: 0 };
  }

  scratch(): number {
    if (this.scratchBase < 0) this.scratchBase = this.newSlot();
    return this.scratchBase;
  }

  freshScratch(): number {
    return this.newSlot();
  }

  special(name: string, comp: number): number {
    const key = `${name}.${comp}`;
    let b = this.specialMap.get(key);
    if (b === undefined) {
      b = this.newSlot();
      this.specials.push({ base: b, name, comp });
      this.specialMap.set(key, b);
    }
    return b;
  }

  /** Constant slot for an immediate interpreted as `type`. */
  imm(op: ROperand, type: string): number {
    if (op.kind === 'int') {
      const v = op.value;
      if (type === 'f32') return this.constBits(fp.f32ToBits(Number(v)), 0);
      if (type === 'f64') { const x = Number(v); return this.constBits(fp.f64LoWord(x), fp.f64HiWord(x)); }
      const u = BigInt.asUintN(64, v);
      return this.constBits(Number(u & 0xffffffffn), Number(u >> 32n));
    }
    if (op.kind === 'float') {
      if (type === 'f64' || type === 'b64' || type === 'u64' || type === 's64') {
        const x = op.f32Bits !== undefined && type === 'f64' ? fp.bitsToF32(op.f32Bits) : op.value;
        return this.constBits(fp.f64LoWord(x), fp.f64HiWord(x));
      }
      if (type === 'f16' || type === 'bf16') {
        return this.constBits(type === 'f16' ? fp.toF16(op.value, fp.RN) : fp.toBf16(op.value, fp.RN), 0);
      }
      return this.constBits(op.f32Bits ?? fp.f32ToBits(op.value), 0);
    }
    throw new Error('not an immediate');
  }

  template(): ArrayBuffer {
    const buf = new ArrayBuffer(Math.max(1, this.nslots) * 256);
    const u32 = new Uint32Array(buf);
    for (const c of this.consts) {
      for (let l = 0; l < 32; l++) {
        u32[c.base + 2 * l] = c.lo;
        u32[c.base + 2 * l + 1] = c.hi;
      }
    }
    return buf;
  }
}

/** The values of initialized registers, encoded as their type's bit pattern (a predicate: 0/1). */
export function registerInitializers(fn: ProgFunction, fc: FnCompiler): CFunction['regInit'] {
  const out: { base: number; lo: number; hi: number }[] = [];
  for (const r of fn.regs) {
    const init = r.init;
    if (init === undefined || (init.kind !== 'int' && init.kind !== 'float')) continue;
    if (r.type === 'pred') {
      out.push({ base: r.slot * 64, lo: (init.kind === 'int' ? init.value !== 0n : init.value !== 0) ? 1 : 0, hi: 0 });
      continue;
    }
    const slot = fc.imm(init.kind === 'int' ? { kind: 'int', value: init.value, span: init.span } : { kind: 'float', value: init.value, f32Bits: init.f32Bits, span: init.span }, r.type);
    const c = fc.constAt(slot);
    const size = typeSize(r.type);
    // narrow integer registers hold the value truncated to their width
    const lo = size >= 4 ? c.lo : c.lo & (size === 2 ? 0xffff : 0xff);
    out.push({ base: r.slot * 64, lo, hi: size === 8 ? c.hi : 0 });
  }
  return out;
}

/** Give a fresh or reused frame's initialized registers their initial values. */
export function initRegisters(fn: CFunction, u32: Uint32Array): void {
  for (const r of fn.regInit) {
    for (let l = 0; l < 32; l++) { u32[r.base + 2 * l] = r.lo; u32[r.base + 2 * l + 1] = r.hi; }
  }
}
