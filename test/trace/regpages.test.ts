/**
 * Encoded register files: every slot form (zero, uniform, lane-affine, 32-bit, raw) decodes to
 * the exact words, and the forms are as small as their definitions say.
 */
import { decodeRegs, encodeRegs, maxEncodedRegs } from '../../src/trace/regpages.js';

/** A register file of `slots` slots; slot s lane l gets (lo, hi) = f(s, l). */
function file(slots: number, f: (s: number, l: number) => [number, number]): Int32Array {
  const w = new Int32Array(slots * 64);
  for (let s = 0; s < slots; s++) for (let l = 0; l < 32; l++) { const [lo, hi] = f(s, l); w[s * 64 + 2 * l] = lo; w[s * 64 + 2 * l + 1] = hi; }
  return w;
}

const FORMS: ((l: number) => [number, number])[] = [
  () => [0, 0], // zero
  () => [7, -1], // uniform 64-bit
  (l) => [1000 + 4 * l, 0x7f00], // affine low words (an address), uniform high word
  (l) => [(0xfffffff0 + 8 * l) | 0, 3], // affine with wrap-around of the low word
  (l) => [(l * l * 2654435761) | 0, 0], // 32-bit values (not lane-affine), high words zero
  (l) => [l * 3 + 1, l & 1], // anything else
];

test('every form round-trips exactly, including a last page of fewer than 4 slots', () => {
  const w = file(FORMS.length + 1, (s, l) => (s < FORMS.length ? FORMS[s]!(l) : [l, -l]));
  // written after 8 bytes of something else, as in a checkpoint's buffer
  const out = new Uint8Array(8 + maxEncodedRegs(w)).fill(0xee);
  const end = encodeRegs(w, out, 8);
  // page 0: 4 mode bytes + uniform 8 + affine 12 + affine 12; page 1: 4 + 32-bit 128 + raw 256 + raw 256
  expect(end - 8).toBe(4 + 8 + 12 + 12 + (4 + 128 + 256 + 256));
  expect(Array.from(out.subarray(0, 8))).toEqual(new Array(8).fill(0xee));
  // page 0's modes: zero, uniform, affine, affine; page 1's: 32-bit, raw, raw, none
  expect(Array.from(out.subarray(8, 12))).toEqual([0, 1, 2, 2]);
  expect(Array.from(out.subarray(8 + 36, 8 + 40))).toEqual([3, 4, 4, 255]);
  const back = new Int32Array(w.length).fill(12345);
  decodeRegs(back, out.subarray(8, end));
  expect(Array.from(back)).toEqual(Array.from(w));
});

test('a file of whole pages: every slot zero takes 4 bytes a page', () => {
  const w = new Int32Array(8 * 64);
  const out = new Uint8Array(maxEncodedRegs(w));
  expect(encodeRegs(w, out, 0)).toBe(8);
  const back = new Int32Array(w.length).fill(-1);
  decodeRegs(back, out.subarray(0, 8));
  expect(Array.from(back)).toEqual(Array.from(w));
});
