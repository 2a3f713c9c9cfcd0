/**
 * Register files in checkpoints, encoded: a register slot is 32 lanes of (low, high) words, and
 * most slots are far from random — unused (zero), the same in every lane (a parameter, a loop
 * count), 32-bit values with zero high words, or lane-affine like `blockIdx.x * blockDim.x +
 * threadIdx.x` and the addresses made from it. Each slot is stored in the smallest form that
 * holds it exactly; a page is 4 slots (4 mode bytes, then their payloads). Registers were most of
 * a checkpoint's bytes before this.
 */

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

/** Encode the register file `w` (whole slots) at `at` in `out`, page after page; the end. `out` has maxEncodedRegs(w) bytes from `at`. */
export function encodeRegs(w: Int32Array, out: Uint8Array, at: number): number {
  if ((out.byteOffset + at) & 3) throw new RangeError('encoded register pages must start 4-aligned');
  const slots = w.length / SLOT_WORDS;
  const words = new Int32Array(out.buffer, out.byteOffset + at, (out.length - at) >>> 2);
  let o = 0; // in words
  for (let i = 0; i * SLOTS < slots; i++) {
    const n = Math.min(SLOTS, slots - i * SLOTS);
    // the page's 4 mode bytes (one word), then its slots' payloads
    const modes = at + 4 * o;
    let end = o + 1;
    for (let k = 0; k < n; k++) end = encodeSlot(w, (i * SLOTS + k) * SLOT_WORDS, words, end, out, modes + k);
    for (let k = n; k < SLOTS; k++) out[modes + k] = 255; // no slot here (the file's last page)
    o = end;
  }
  return at + 4 * o;
}

/** Bytes that encodeRegs may write for `w` (every slot raw). */
export function maxEncodedRegs(w: Int32Array): number {
  const slots = w.length / SLOT_WORDS;
  return 4 * Math.ceil(slots / SLOTS) + 4 * slots * SLOT_WORDS;
}

/** Write a register file encoded by encodeRegs back into `w` (`bytes` starts 4-aligned). */
export function decodeRegs(w: Int32Array, bytes: Uint8Array): void {
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  for (let o = 0, page = 0; o < words.length; page++) {
    const modes = 4 * o;
    o++;
    for (let k = 0; k < SLOTS; k++) {
      const mode = bytes[modes + k]!;
      if (mode === 255) break;
      const s = (page * SLOTS + k) * SLOT_WORDS;
      switch (mode as Mode) {
        case Mode.Zero: w.fill(0, s, s + SLOT_WORDS); break;
        case Mode.Uniform: for (let l = 0; l < 32; l++) { w[s + 2 * l] = words[o]!; w[s + 2 * l + 1] = words[o + 1]!; } o += 2; break;
        case Mode.Affine: for (let l = 0; l < 32; l++) { w[s + 2 * l] = (words[o]! + Math.imul(l, words[o + 1]!)) | 0; w[s + 2 * l + 1] = words[o + 2]!; } o += 3; break;
        case Mode.Low: for (let l = 0; l < 32; l++) { w[s + 2 * l] = words[o + l]!; w[s + 2 * l + 1] = 0; } o += 32; break;
        default: w.set(words.subarray(o, o + SLOT_WORDS), s); o += SLOT_WORDS;
      }
    }
  }
}
