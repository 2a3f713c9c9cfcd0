/**
 * Encoded register pages: every slot form (zero, uniform, lane-affine, 32-bit, raw) decodes to
 * the exact words, a page unchanged since the previous snapshot is the same object, and the
 * forms are as small as their definitions say.
 */
import { restoreRegs, snapRegs } from '../../src/trace/regpages.js';

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
  const pages = snapRegs(w, undefined);
  expect(pages.length).toBe(2);
  const back = new Int32Array(w.length).fill(12345);
  restoreRegs(back, pages);
  expect(Array.from(back)).toEqual(Array.from(w));
  // page 0: 4 mode bytes + uniform 8 + affine 12 + affine 12; page 1: 4 + 32-bit 128 + raw 256 + raw 256
  expect(pages.map((p) => p.byteLength)).toEqual([4 + 8 + 12 + 12, 4 + 128 + 256 + 256]);
});

test('an unchanged page is shared with the previous snapshot; a changed one is not', () => {
  const w = file(8, (s, l) => [s * 100 + l, 0]);
  const a = snapRegs(w, undefined);
  w[4 * 64 + 2 * 5] = 99; // slot 4, lane 5: page 1
  const b = snapRegs(w, a);
  expect(b[0]).toBe(a[0]);
  expect(b[1]).not.toBe(a[1]);
  const back = new Int32Array(w.length);
  restoreRegs(back, b);
  expect(Array.from(back)).toEqual(Array.from(w));
});
