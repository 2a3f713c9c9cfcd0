/**
 * Register files in checkpoints, encoded: a register slot is 32 lanes of (low, high) words, and
 * most slots are far from random — unused (zero), the same in every lane (a parameter, a loop
 * count), 32-bit values with zero high words, or lane-affine like `blockIdx.x * blockDim.x +
 * threadIdx.x` and the addresses made from it. Each slot is stored in the smallest form that
 * holds it exactly; a page is 4 slots, shared with the previous checkpoint when its encoding is
 * unchanged. Registers were most of a checkpoint's bytes before this.
 */
import type { Pages } from './pages.js';

/** Slots per page (1 KiB of register file). */
const SLOTS = 4;
const SLOT_WORDS = 64;

const enum Mode {
  /** every word zero: no payload */
  Zero = 0,
  /** every lane the same (low, high): 8 bytes */
  Uniform = 1,
  /** low words a + lane * d (mod 2^32), high words all h: 12 bytes */
  Affine = 2,
  /** high words zero: the 32 low words, 128 bytes */
  Low = 3,
  /** anything else: 256 bytes */
  Raw = 4,
}

function encodeSlot(w: Int32Array, at: number, out: Int32Array, o: number, modes: Uint8Array, k: number): number {
  const lo0 = w[at]!, hi0 = w[at + 1]!;
  // branch-free: the bits in which some lane's words differ from lane 0's, and the high words' bits
  let loDiff = 0, hiDiff = 0, hiBits = 0;
  for (let l = 1; l < 32; l++) {
    const lo = w[at + 2 * l]!, hi = w[at + 2 * l + 1]!;
    loDiff |= lo ^ lo0;
    hiDiff |= hi ^ hi0;
    hiBits |= hi;
  }
  const highSame = hiDiff === 0, uniform = highSame && loDiff === 0, highZero = (hiBits | hi0) === 0;
  if (uniform) {
    if (lo0 === 0 && hi0 === 0) { modes[k] = Mode.Zero; return o; }
    modes[k] = Mode.Uniform;
    out[o] = lo0; out[o + 1] = hi0;
    return o + 2;
  }
  if (highSame) {
    const d = (w[at + 2]! - lo0) | 0;
    let affine = true;
    for (let l = 2; l < 32 && affine; l++) if (w[at + 2 * l]! !== ((lo0 + Math.imul(l, d)) | 0)) affine = false;
    if (affine) {
      modes[k] = Mode.Affine;
      out[o] = lo0; out[o + 1] = d; out[o + 2] = hi0;
      return o + 3;
    }
  }
  if (highZero) {
    modes[k] = Mode.Low;
    for (let l = 0; l < 32; l++) out[o + l] = w[at + 2 * l]!;
    return o + 32;
  }
  modes[k] = Mode.Raw;
  for (let i = 0; i < SLOT_WORDS; i++) out[o + i] = w[at + i]!;
  return o + SLOT_WORDS;
}

/** The page being encoded: 4 mode bytes, then the payload words (at most 4 raw slots). */
const scratchBytes = new Uint8Array(4 + 4 * SLOTS * SLOT_WORDS);
const scratch = new Int32Array(scratchBytes.buffer, 4, SLOTS * SLOT_WORDS);

/** Encode the page of `slots` slots from word `at` into scratchBytes; its length in bytes. */
function encodePage(w: Int32Array, at: number, slots: number): number {
  let o = 0;
  for (let k = 0; k < slots; k++) o = encodeSlot(w, at + k * SLOT_WORDS, scratch, o, scratchBytes, k);
  for (let k = slots; k < 4; k++) scratchBytes[k] = 255; // no slot here (the file's last page)
  return 4 + 4 * o;
}

/** Payload words of a slot in each mode (Mode's order). */
const MODE_WORDS = [0, 2, 3, 32, SLOT_WORDS];

/** Length in bytes of the encoded page at `at` in `bytes` (its mode bytes say). */
export function encodedPageLength(bytes: Uint8Array, at: number): number {
  let words = 0;
  for (let k = 0; k < SLOTS; k++) {
    const mode = bytes[at + k]!;
    if (mode === 255) break;
    words += MODE_WORDS[mode]!;
  }
  return 4 + 4 * words;
}

function decodePage(p: Uint8Array, w: Int32Array, at: number): void {
  const words = new Int32Array(p.buffer, p.byteOffset + 4, (p.byteLength - 4) >>> 2);
  let o = 0;
  for (let k = 0; k < SLOTS; k++) {
    const mode = p[k]!;
    if (mode === 255) break;
    const s = at + k * SLOT_WORDS;
    switch (mode as Mode) {
      case Mode.Zero: w.fill(0, s, s + SLOT_WORDS); break;
      case Mode.Uniform: for (let l = 0; l < 32; l++) { w[s + 2 * l] = words[o]!; w[s + 2 * l + 1] = words[o + 1]!; } o += 2; break;
      case Mode.Affine: for (let l = 0; l < 32; l++) { w[s + 2 * l] = (words[o]! + Math.imul(l, words[o + 1]!)) | 0; w[s + 2 * l + 1] = words[o + 2]!; } o += 3; break;
      case Mode.Low: for (let l = 0; l < 32; l++) { w[s + 2 * l] = words[o + l]!; w[s + 2 * l + 1] = 0; } o += 32; break;
      default: w.set(words.subarray(o, o + SLOT_WORDS), s); o += SLOT_WORDS;
    }
  }
}

/**
 * Encoded pages are views into shared slabs, not arrays of their own: an ArrayBuffer with its
 * backing store costs a few hundred bytes beside a page of a few dozen (a long recording keeps
 * hundreds of thousands of pages). Pages are word-aligned in the slab (decodePage reads words).
 */
const SLAB = 1 << 16;
let slab = new Uint8Array(SLAB);
let slabUsed = 0;

function keep(len: number): Uint8Array {
  if (slabUsed + len > SLAB) { slab = new Uint8Array(SLAB); slabUsed = 0; }
  const p = slab.subarray(slabUsed, slabUsed + len);
  p.set(scratchBytes.subarray(0, len));
  slabUsed += len;
  return p;
}

/** Whether page `p` holds exactly the first `len` bytes of scratchBytes. */
function sameAsScratch(p: Uint8Array, len: number): boolean {
  if (p.byteLength !== len) return false;
  for (let i = 0; i < len; i++) if (p[i] !== scratchBytes[i]) return false;
  return true;
}

/**
 * Snapshot a register file (whole slots of 32 lanes x 2 words), sharing pages unchanged since
 * `prev`: a page is encoded in scratch and copied out only when it differs (most do not, and a
 * small typed array per page is what a checkpoint spent its time allocating).
 */
export function snapRegs(w: Int32Array, prev: Pages | undefined): Pages {
  const slots = w.length / SLOT_WORDS;
  const n = Math.ceil(slots / SLOTS);
  const reuse = prev !== undefined && prev.length === n;
  // made at the first page that differs (every page unchanged: the previous page set itself)
  let out: Uint8Array[] | undefined = reuse ? undefined : new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) {
    const len = encodePage(w, i * SLOTS * SLOT_WORDS, Math.min(SLOTS, slots - i * SLOTS));
    if (reuse && sameAsScratch(prev[i]!, len)) {
      if (out !== undefined) out[i] = prev[i]!;
    } else {
      out ??= prev!.slice();
      out[i] = keep(len);
    }
  }
  return out ?? prev!;
}

/** Write an encoded register file back. */
export function restoreRegs(w: Int32Array, pages: Pages): void {
  pages.forEach((p, i) => decodePage(p, w, i * SLOTS * SLOT_WORDS));
}
