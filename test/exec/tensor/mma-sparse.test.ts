/**
 * mma.sp (sparse A). The test makes a structured-sparse A (2:4, 1:2 for tf32, pairs 4:8 for
 * s4/u4), compresses it and writes its metadata by the PTX ISA's "Sparse matrix storage" and
 * "Matrix fragments for sparse mma" text (written out here per shape, independently of
 * src/exec/tensor/mma-sparse.ts), then compares D with a plain dense multiply of the
 * uncompressed A. Lanes that hold no metadata for the selector get garbage in their `e`, so a
 * wrong selector reading shows up.
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';

type P = [number, number];
type In = 'f16' | 'bf16' | 'tf32' | 's8' | 'u8' | 's4' | 'u4' | 'e4m3' | 'e5m2';
type Acc = 'f32' | 'f16' | 's32';
const g = (l: number): number => l >> 2, tig = (l: number): number => l % 4;

interface Shape {
  k: number; bits: number;
  /** Columns per metadata chunk and values kept per chunk. */
  chunk: number; kept: number;
  /** A register r of lane l: the kept values of `span` consecutive columns of `row` from `first`. */
  aReg: (l: number, r: number) => { row: number; first: number }; nA: number;
  /** B element i of lane l (its registers hold 32/bits elements each, low bits first). */
  b: (l: number, i: number) => P; nB: number;
}

// the ISA's "row = ..., firstcol = ..." lines per shape (register r holds 32/bits kept values)
const SHAPES: Record<string, Shape> = {
  // f16/bf16 m16n8k16: a0,a1 row groupID, a2,a3 groupID+8; firstcol = tig*4. B as dense m16n8k16.
  'm16n8k16/16': { k: 16, bits: 16, chunk: 4, kept: 2, nA: 2, aReg: (l, r) => ({ row: g(l) + 8 * r, first: tig(l) * 4 }),
    nB: 4, b: (l, i) => [tig(l) * 2 + (i & 1) + (i < 2 ? 0 : 8), g(l)] },
  // f16/bf16 m16n8k32: rows groupID for a0,a1,a4,a5; firstcol tig*4, +16 from a4. B: register j = rows 8j + 2*tig, +1.
  'm16n8k32/16': { k: 32, bits: 16, chunk: 4, kept: 2, nA: 4, aReg: (l, r) => ({ row: g(l) + 8 * (r & 1), first: tig(l) * 4 + (r < 2 ? 0 : 16) }),
    nB: 8, b: (l, i) => [8 * (i >> 1) + tig(l) * 2 + (i & 1), g(l)] },
  // tf32 m16n8k8: a0 row groupID, a1 groupID+8; firstcol tig*2. B as dense m16n8k8 .tf32.
  'm16n8k8/32': { k: 8, bits: 32, chunk: 2, kept: 1, nA: 2, aReg: (l, r) => ({ row: g(l) + 8 * r, first: tig(l) * 2 }),
    nB: 2, b: (l, i) => [tig(l) + 4 * i, g(l)] },
  // tf32 m16n8k16: a0,a2 row groupID, a1,a3 groupID+8; firstcol tig*2, +8 for a2,a3. B: b_i at row tig + 4i.
  'm16n8k16/32': { k: 16, bits: 32, chunk: 2, kept: 1, nA: 4, aReg: (l, r) => ({ row: g(l) + 8 * (r & 1), first: tig(l) * 2 + (r < 2 ? 0 : 8) }),
    nB: 4, b: (l, i) => [tig(l) + 4 * i, g(l)] },
  // s8/u8 m16n8k32: a0..a3 row groupID, a4..a7 groupID+8; firstcol tig*8. B as dense m16n8k32.
  'm16n8k32/8': { k: 32, bits: 8, chunk: 4, kept: 2, nA: 2, aReg: (l, r) => ({ row: g(l) + 8 * r, first: tig(l) * 8 }),
    nB: 8, b: (l, i) => [tig(l) * 4 + (i & 3) + (i < 4 ? 0 : 16), g(l)] },
  // s8/u8/fp8 m16n8k64: rows groupID for a0..a3, a8..a11; firstcol tig*8, +32 from a8. B: register j = rows 16j + 4*tig ..
  'm16n8k64/8': { k: 64, bits: 8, chunk: 4, kept: 2, nA: 4, aReg: (l, r) => ({ row: g(l) + 8 * (r & 1), first: tig(l) * 8 + (r < 2 ? 0 : 32) }),
    nB: 16, b: (l, i) => [16 * (i >> 2) + tig(l) * 4 + (i & 3), g(l)] },
  // s4/u4 m16n8k64: a0..a7 row groupID, a8..a15 groupID+8; firstcol tig*16. B as dense m16n8k64 .s4.
  'm16n8k64/4': { k: 64, bits: 4, chunk: 8, kept: 4, nA: 2, aReg: (l, r) => ({ row: g(l) + 8 * r, first: tig(l) * 16 }),
    nB: 16, b: (l, i) => [tig(l) * 8 + (i & 7) + (i < 8 ? 0 : 32), g(l)] },
  // s4/u4 m16n8k128: rows groupID for a0..a7, a16..a23; firstcol tig*16, +64 from a16. B: register j = rows 32j + 8*tig ..
  'm16n8k128/4': { k: 128, bits: 4, chunk: 8, kept: 4, nA: 4, aReg: (l, r) => ({ row: g(l) + 8 * (r & 1), first: tig(l) * 16 + (r < 2 ? 0 : 64) }),
    nB: 32, b: (l, i) => [32 * (i >> 3) + tig(l) * 8 + (i & 7), g(l)] },
};
const BITS: Record<In, number> = { f16: 16, bf16: 16, tf32: 32, s8: 8, u8: 8, s4: 4, u4: 4, e4m3: 8, e5m2: 8 };
const cPos = (l: number, i: number): P => [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)];

/**
 * Metadata ("Sparse matrix storage" and the metadata figures): each thread's 32-bit `e` holds,
 * for row groupID, a 4-bit field per chunk in bits 0..15, and for row groupID+8 the same chunks in
 * bits 16..31, so one register covers 4 chunks of both rows. m16n8k16 f16 (and m16n8k8 tf32): the
 * thread the selector names; the k32 f16 / k16 tf32 / k32 s8 / k64 s4 shapes: threads 2f (first
 * 4 chunks) and 2f+1 (next 4); k64 s8 and k128 s4: thread j holds chunks 4j..4j+3, selector 0.
 */
function metaSlot(s: Shape, sel: number, row: number, chunk: number): { lane: number; bit: number } {
  const chunks = s.k / s.chunk;
  const thread = chunks === 4 ? sel : chunks === 8 ? 2 * sel + (chunk >> 2) : chunk >> 2;
  return { lane: (row % 8) * 4 + thread, bit: (row >= 8 ? 16 : 0) + (chunk % 4) * 4 };
}

/** The kept positions of each chunk, and their 4-bit metadata field (first index in the low 2 bits). */
const PAIRS: [number, number][] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
function keptOf(s: Shape, row: number, chunk: number, swap: boolean): { cols: number[]; field: number } {
  const pick = (row * 5 + chunk * 3) % (s.kept === 1 ? 2 : 6);
  if (s.kept === 1) return { cols: [pick], field: pick === 0 ? 0b0100 : 0b1110 }; // tf32: 0b0100 column 0, 0b1110 column 1
  let [i0, i1] = PAIRS[pick]!;
  if (swap) [i0, i1] = [i1, i0]; // mma.sp (not ::ordered_metadata) takes the indices in either order
  const field = i0 | (i1 << 2);
  // s4/u4: the indices name two-wide sub-chunks of the eight-wide chunk
  const cols = s.kept === 4 ? [2 * i0, 2 * i0 + 1, 2 * i1, 2 * i1 + 1] : [i0, i1];
  return { cols, field };
}

/** An A/B element; C is cval's. */
function value(t: In, i: number, j: number): number {
  switch (t) {
    case 's8': return ((i * 37 + j * 11) % 255) - 127;
    case 'u8': return (i * 37 + j * 11) % 256;
    case 's4': return ((i * 5 + j * 3) % 16) - 8;
    case 'u4': return (i * 5 + j * 3) % 16;
    // multiples of 1/4 in [-1, 1]: exact in every input format here, products and sums exact too
    default: return (((i * 7 + j * 3) % 9) - 4) / 4;
  }
}
const cval = (acc: Acc, i: number, j: number): number => (acc === 's32' ? (i - j) * 1000 : i - j);

function encF16(x: number): number {
  if (x === 0) return 0;
  const s = x < 0 ? 0x8000 : 0, a = Math.abs(x), e = Math.floor(Math.log2(a));
  const mant = (a / 2 ** e - 1) * 1024;
  if (!Number.isInteger(mant) || e < -14 || e > 15) throw new Error(`not an exact f16 normal: ${x}`);
  return s | ((e + 15) << 10) | mant;
}
function decF16(h: number): number {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}
/** E4M3 (bias 7, 3 mantissa bits) and E5M2 (bias 15, 2 bits) encodings of exact normals and 0. */
function encFp8(x: number, ebits: number, mbits: number): number {
  if (x === 0) return 0;
  const s = x < 0 ? 0x80 : 0, a = Math.abs(x), e = Math.floor(Math.log2(a));
  const mant = (a / 2 ** e - 1) * 2 ** mbits;
  if (!Number.isInteger(mant)) throw new Error(`not exact: ${x}`);
  return s | ((e + 2 ** (ebits - 1) - 1) << mbits) | mant;
}
const f32bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;
function bitsOf(t: In, x: number): number {
  switch (t) {
    case 'f16': return encF16(x);
    case 'bf16': return f32bits(x) >>> 16;
    case 'tf32': return f32bits(x);
    case 'e4m3': return encFp8(x, 4, 3);
    case 'e5m2': return encFp8(x, 5, 2);
    default: return x & ((1 << BITS[t]) - 1);
  }
}

interface Case { shape: string; at: In; bt?: In; acc: Acc; sel: number; ordered?: boolean; swap?: boolean; sat?: boolean; big?: boolean; target?: string }

function kernel(c: Case, s: Shape, nb: number, nc: number): string {
  const ct = c.acc === 'f16' ? 'b32' : c.acc;
  const lines: string[] = [];
  let off = 0;
  for (let i = 0; i < s.nA; i++, off += 4) lines.push(`ld.global.b32 %a${i}, [%rd4+${off}];`);
  for (let i = 0; i < nb; i++, off += 4) lines.push(`ld.global.b32 %b${i}, [%rd4+${off}];`);
  for (let i = 0; i < nc; i++, off += 4) lines.push(`ld.global.${ct} %c${i}, [%rd4+${off}];`);
  lines.push(`ld.global.b32 %e, [%rd4+${off}];`);
  const list = (p: string, m: number): string => `{${Array.from({ length: m }, (_, i) => `%${p}${i}`).join(', ')}}`;
  const sp = c.ordered ? 'sp::ordered_metadata' : 'sp';
  lines.push(`mma.${sp}.sync.aligned.${c.shape}.row.col${c.sat ? '.satfinite' : ''}.${c.acc}.${c.at}.${c.bt ?? c.at}.${c.acc} ${list('d', nc)}, ${list('a', s.nA)}, ${list('b', nb)}, ${list('c', nc)}, %e, ${c.sel};`);
  for (let i = 0; i < nc; i++) lines.push(`st.global.${ct} [%rd6+${4 * i}], %d${i};`);
  return `.version 8.5
.target ${c.target ?? 'sm_80'}
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %a<4>; .reg .b32 %b<8>; .reg .${ct} %c<4>; .reg .${ct} %d<4>; .reg .b32 %e; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, ${off + 4}; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, ${4 * nc}; add.s64 %rd6, %rd2, %rd5;
  ${lines.join('\n  ')}
  ret;
}`;
}

/** Runs the case; returns D from the machine and D = A*B + C computed here from the dense A. */
function runCase(c: Case): { got: number[][]; want: number[][] } {
  const bits = BITS[c.at];
  const s = SHAPES[`${c.shape}/${bits}`]!;
  const bt = c.bt ?? c.at;
  const K = s.k, per = 32 / bits;
  // dense A (16 x K) with the structured zeros, and its metadata fields
  const A = Array.from({ length: 16 }, () => new Array<number>(K).fill(0));
  const field = Array.from({ length: 16 }, () => new Array<number>(K / s.chunk).fill(0));
  const keptCols = Array.from({ length: 16 }, () => [] as number[]); // per row, kept columns in storage order
  for (let r = 0; r < 16; r++) {
    for (let ch = 0; ch < K / s.chunk; ch++) {
      const k = keptOf(s, r, ch, c.swap === true);
      field[r]![ch] = k.field;
      for (const col of k.cols) {
        A[r]![ch * s.chunk + col] = value(c.at, r, ch * s.chunk + col) || 1; // kept values are nonzero
        keptCols[r]!.push(ch * s.chunk + col);
      }
    }
  }
  const B = Array.from({ length: K }, (_, i) => Array.from({ length: 8 }, (_, j) => value(bt, i + 3, j)));
  const C = Array.from({ length: 16 }, (_, i) => Array.from({ length: 8 }, (_, j) => (c.big ? 2147483647 - 100 : cval(c.acc, i, j))));
  const nb = s.nB / per, nc = c.acc === 'f16' ? 2 : 4;
  const words = s.nA + nb + nc + 1;
  const inp = new Uint32Array(32 * words);
  // garbage metadata everywhere; the contributing lanes get the real fields below
  for (let l = 0; l < 32; l++) inp[l * words + words - 1] = 0xffffffff;
  const touched = new Set<number>();
  for (let r = 0; r < 16; r++) {
    for (let ch = 0; ch < K / s.chunk; ch++) {
      const { lane, bit } = metaSlot(s, c.sel, r, ch);
      const at = lane * words + words - 1;
      if (!touched.has(lane)) { inp[at] = 0; touched.add(lane); }
      inp[at] = (inp[at]! | (field[r]![ch]! << bit)) >>> 0;
    }
  }
  for (let l = 0; l < 32; l++) {
    const w = l * words;
    for (let r = 0; r < s.nA; r++) {
      // the kept values of `span` columns from firstcol, in storage order, low bits first
      const { row, first } = s.aReg(l, r);
      const vals = keptCols[row]!.filter((col) => col >= first && col < first + 2 * per);
      expect(vals.length).toBe(per);
      vals.forEach((col, i) => { inp[w + r] = (inp[w + r]! | (bitsOf(c.at, A[row]![col]!) << (i * bits))) >>> 0; });
    }
    for (let i = 0; i < s.nB; i++) {
      const [r, col] = s.b(l, i);
      const o = w + s.nA + Math.floor(i / per);
      inp[o] = (inp[o]! | (bitsOf(bt, B[r]![col]!) << ((i % per) * bits))) >>> 0;
    }
    for (let i = 0; i < 4; i++) {
      const [r, col] = cPos(l, i);
      const x = C[r]![col]!;
      const o = w + s.nA + nb;
      if (c.acc === 'f16') inp[o + (i >> 1)] = (inp[o + (i >> 1)]! | (encF16(x) << (16 * (i & 1)))) >>> 0;
      else inp[o + i] = c.acc === 'f32' ? f32bits(x) : x >>> 0;
    }
  }
  const loaded = loadPtx(kernel(c, s, nb, nc), 'sp.ptx');
  if (!loaded.program) throw new Error(JSON.stringify(loaded.diagnostics));
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u8', count: 4 * inp.length, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u8', count: 32 * 4 * nc, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new DataView(m.arena.bank.u8.slice(base, base + 32 * 4 * nc).buffer);
  const got = Array.from({ length: 16 }, () => new Array<number>(8).fill(NaN));
  for (let l = 0; l < 32; l++) {
    for (let i = 0; i < 4; i++) {
      const [r, col] = cPos(l, i);
      const at = l * 4 * nc;
      got[r]![col] = c.acc === 'f32' ? out.getFloat32(at + 4 * i, true) : c.acc === 'f16' ? decF16(out.getUint16(at + 2 * i, true)) : out.getInt32(at + 4 * i, true);
    }
  }
  let want = C.map((row, i) => row.map((x, j) => A[i]!.reduce((acc, a, k) => acc + a * B[k]![j]!, x)));
  if (c.acc === 's32') want = want.map((row) => row.map((x) => (c.sat ? Math.min(2 ** 31 - 1, Math.max(-(2 ** 31), x)) : x | 0)));
  return { got, want };
}

const cases: Case[] = [
  { shape: 'm16n8k16', at: 'f16', acc: 'f32', sel: 0 }, { shape: 'm16n8k16', at: 'f16', acc: 'f32', sel: 3 },
  { shape: 'm16n8k16', at: 'f16', acc: 'f16', sel: 1 }, { shape: 'm16n8k16', at: 'bf16', acc: 'f32', sel: 2 },
  { shape: 'm16n8k32', at: 'f16', acc: 'f32', sel: 0 }, { shape: 'm16n8k32', at: 'f16', acc: 'f16', sel: 1 },
  { shape: 'm16n8k32', at: 'bf16', acc: 'f32', sel: 1, ordered: true },
  { shape: 'm16n8k8', at: 'tf32', acc: 'f32', sel: 2 }, { shape: 'm16n8k16', at: 'tf32', acc: 'f32', sel: 1 },
  { shape: 'm16n8k32', at: 's8', acc: 's32', sel: 0 }, { shape: 'm16n8k32', at: 'u8', bt: 's8', acc: 's32', sel: 1 },
  { shape: 'm16n8k64', at: 's8', acc: 's32', sel: 0 }, { shape: 'm16n8k64', at: 'u8', acc: 's32', sel: 0, ordered: true },
  { shape: 'm16n8k64', at: 's4', acc: 's32', sel: 1 }, { shape: 'm16n8k64', at: 'u4', bt: 's4', acc: 's32', sel: 0 },
  { shape: 'm16n8k128', at: 's4', acc: 's32', sel: 0 }, { shape: 'm16n8k128', at: 'u4', acc: 's32', sel: 0 },
  { shape: 'm16n8k64', at: 'e4m3', acc: 'f32', sel: 0, target: 'sm_89' }, { shape: 'm16n8k64', at: 'e5m2', bt: 'e4m3', acc: 'f32', sel: 0, target: 'sm_90' },
];

test.each(cases)('mma.sp $shape $at x $bt -> $acc, selector $sel (ordered: $ordered): D = A*B + C of the uncompressed A', (c) => {
  const { got, want } = runCase(c);
  expect(got).toEqual(want);
});

test('mma.sp takes the two indices of a chunk in either order', () => {
  const { got, want } = runCase({ shape: 'm16n8k16', at: 'f16', acc: 'f32', sel: 0, swap: true });
  expect(got).toEqual(want);
  const s4 = runCase({ shape: 'm16n8k64', at: 's4', acc: 's32', sel: 0, swap: true });
  expect(s4.got).toEqual(s4.want);
});

test('.satfinite clamps the s32 sum; without it the sum wraps', () => {
  // C = 2^31 - 101 and u8 products (all >= 0, most > 0): every sum passes the s32 maximum
  const sat = runCase({ shape: 'm16n8k32', at: 'u8', acc: 's32', sel: 0, sat: true, big: true });
  expect(sat.want.flat().every((x) => x === 2147483647)).toBe(true);
  expect(sat.got).toEqual(sat.want);
  const wrap = runCase({ shape: 'm16n8k32', at: 'u8', acc: 's32', sel: 1, big: true });
  expect(wrap.want.flat().every((x) => x < 0)).toBe(true);
  expect(wrap.got).toEqual(wrap.want);
});

describe('malformed mma.sp is a located error', () => {
  const run = (ins: string, target = 'sm_80'): { kind?: string; pc?: number; message?: string } => {
    const ptx = `.version 8.5
.target ${target}
.address_size 64
.visible .entry k()
{
  .reg .f32 %f<8>; .reg .b32 %r<12>;
  mov.b32 %r10, 0;
  ${ins}
  ret;
}`;
    const loaded = loadPtx(ptx, 'bad.ptx');
    if (!loaded.program) throw new Error(JSON.stringify(loaded.diagnostics));
    const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [] };
    const f = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS).run().fault;
    return { kind: f?.kind, pc: f?.pc, message: f?.message };
  };
  const F = '{%f0, %f1, %f2, %f3}';
  test.each([
    [`mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 ${F}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, ${F}, %r10, 2;`, /selector 2 is out of range: it must be 0 \(threads 0, 1/],
    [`mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3}, %r10, 1;`, /selector 1 is out of range: it must be 0/],
    [`mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ${F}, {%r0, %r1}, {%r2, %r3}, ${F}, %r10, %r9;`, /selector must be an integer constant/],
    [`mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ${F}, {%r0, %r1}, {%r2, %r3}, ${F}, %r10;`, /expected d, a, b, c, e \(metadata\), f/],
    [`mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ${F}, {%r0, %r1, %r2}, {%r2, %r3}, ${F}, %r10, 0;`, /A must be a list of 2 registers/],
    [`mma.sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 ${F}, {%r0}, {%r2}, ${F}, %r10, 0;`, /mma\.sp takes \.f16 with \.m16n8k16\/\.m16n8k32/],
    [`mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 ${F}, {%r0, %r1}, {%r2, %r3}, {%r4, %r5}, %r10, 0;`, /\.dtype must be the same as \.ctype/],
    [`mma.sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 ${F}, {%r0, %r1}, {%r2, %r3}, ${F}, %r10, 0;`, /\.satfinite applies to integer/],
    [`mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 ${F}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, ${F}, %r10, 0;`, /need sm_89 or higher; the module's \.target is sm_80/],
  ])('%s', (ins, msg) => {
    const r = run(ins);
    expect(r.kind).toBe('unsupported');
    expect(r.pc).toBe(1);
    expect(r.message).toMatch(msg);
  });
});
