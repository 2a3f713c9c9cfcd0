/**
 * mma.sync for the integer shapes with packed operands: s8/u8 m8n8k16, s4/u4 (m8n8k32, m16n8k32,
 * m16n8k64) and b1 (m8n8k128, m16n8k128, m16n8k256, .xor.popc and .and.popc). The test packs A
 * and B into each lane's registers through the PTX ISA's fragment layouts (written out here per
 * shape, element i of a register at bits i*width upward) and compares D with a plain multiply
 * (for .b1: C + the count of k where a AND/XOR b is 1).
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { unsupportedInstructions } from '../../../src/exec/support.js';
import { loadPtx } from '../../../src/ptx/index.js';

type P = [number, number];
const g = (l: number): number => l >> 2, tig = (l: number): number => l % 4;
interface Shape { m: number; n: number; k: number; width: number; na: number; nb: number; nc: number; a: (l: number, i: number) => P; b: (l: number, i: number) => P }

// "Matrix fragments for mma.m8n8k16 / m8n8k32 / m8n8k128": A row groupID, B column groupID
const m8 = (k: number, width: number, per: number): Shape => ({
  m: 8, n: 8, k, width, na: per, nb: per, nc: 2,
  a: (l, i) => [g(l), tig(l) * per + i], b: (l, i) => [tig(l) * per + i, g(l)],
});
const SHAPES: Record<string, Shape> = {
  'm8n8k16/8': m8(16, 8, 4),
  'm8n8k32/4': m8(32, 4, 8),
  'm8n8k128/1': m8(128, 1, 32),
  // "mma.m16n8k32 .s4/.u4": a0..a7 row groupID, a8..a15 groupID+8; col tig*8 + (i & 7)
  'm16n8k32/4': { m: 16, n: 8, k: 32, width: 4, na: 16, nb: 8, nc: 4,
    a: (l, i) => [i < 8 ? g(l) : g(l) + 8, tig(l) * 8 + (i & 7)], b: (l, i) => [tig(l) * 8 + i, g(l)] },
  // "mma.m16n8k64 .s4/.u4": rows groupID for i < 8 and 16 <= i < 24; columns +32 from a16 on
  'm16n8k64/4': { m: 16, n: 8, k: 64, width: 4, na: 32, nb: 16, nc: 4,
    a: (l, i) => [(i < 8 || (i >= 16 && i < 24)) ? g(l) : g(l) + 8, tig(l) * 8 + (i & 7) + (i < 16 ? 0 : 32)],
    b: (l, i) => [tig(l) * 8 + (i & 7) + (i < 8 ? 0 : 32), g(l)] },
  // "mma.m16n8k128 .b1": a0..a31 row groupID, a32..a63 groupID+8; col tig*32 + (i & 31)
  'm16n8k128/1': { m: 16, n: 8, k: 128, width: 1, na: 64, nb: 32, nc: 4,
    a: (l, i) => [i < 32 ? g(l) : g(l) + 8, tig(l) * 32 + (i & 31)], b: (l, i) => [tig(l) * 32 + i, g(l)] },
  // "mma.m16n8k256 .b1": rows groupID for i < 32 and 64 <= i < 96; columns +128 from a64 on
  'm16n8k256/1': { m: 16, n: 8, k: 256, width: 1, na: 128, nb: 64, nc: 4,
    a: (l, i) => [(i < 32 || (i >= 64 && i < 96)) ? g(l) : g(l) + 8, tig(l) * 32 + (i & 31) + (i < 64 ? 0 : 128)],
    b: (l, i) => [tig(l) * 32 + (i & 31) + (i < 32 ? 0 : 128), g(l)] },
};
// C/D: m8n8 row groupID, col tig*2 + i; m16n8 c0,c1 row groupID, c2,c3 row groupID+8
const cPos = (s: Shape, l: number, i: number): P => (s.m === 8 ? [g(l), tig(l) * 2 + i] : [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)]);

function run(shape: string, types: string, A: number[][], B: number[][], C: number[][], extra = '', after = ''): number[][] {
  const s = SHAPES[`${shape}/${types.includes('b1') ? 1 : types.includes('4') ? 4 : 8}`]!;
  const per = 32 / s.width;
  const ra = s.na / per, rb = s.nb / per, words = ra + rb + s.nc;
  const inp = new Uint32Array(32 * words);
  const lim = 2 ** s.width;
  for (let l = 0; l < 32; l++) {
    const w = l * words;
    for (let i = 0; i < s.na; i++) {
      const [r, c] = s.a(l, i);
      inp[w + Math.floor(i / per)]! |= (((A[r]![c]! % lim) + lim) % lim) << ((i % per) * s.width);
    }
    for (let i = 0; i < s.nb; i++) {
      const [r, c] = s.b(l, i);
      inp[w + ra + Math.floor(i / per)]! |= (((B[r]![c]! % lim) + lim) % lim) << ((i % per) * s.width);
    }
    for (let i = 0; i < s.nc; i++) { const [r, c] = cPos(s, l, i); inp[w + ra + rb + i] = C[r]![c]! >>> 0; }
  }
  const list = (p: string, from: number, n: number): string => `{${Array.from({ length: n }, (_, i) => `%r${from + i}`).join(', ')}}`.replace(/%r/g, `%${p}`);
  const loads = Array.from({ length: words }, (_, i) => `ld.global.b32 %x${i}, [%rd4+${4 * i}];`).join('\n  ');
  const stores = Array.from({ length: s.nc }, (_, i) => `st.global.b32 [%rd6+${4 * i}], %d${i};`).join('\n  ');
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %x<16>; .reg .b32 %d<4>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, ${4 * words}; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, ${4 * s.nc}; add.s64 %rd6, %rd2, %rd5;
  ${loads}
  mma.sync.aligned.${shape}.row.col${extra}.${types}${after} ${list('d', 0, s.nc)}, ${list('x', 0, ra)}, ${list('x', ra, rb)}, ${list('x', ra + rb, s.nc)};
  ${stores}
  ret;
}`;
  const loaded = loadPtx(ptx, 'mma.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded.diagnostics)}`);
  expect(unsupportedInstructions(loaded.program).map((d) => d.message)).toEqual([]);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u32', count: inp.length, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u32', count: 32 * s.nc, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new Int32Array(m.arena.bank.u8.slice(base, base + 4 * 32 * s.nc).buffer);
  const D = Array.from({ length: s.m }, () => new Array<number>(s.n).fill(NaN));
  for (let l = 0; l < 32; l++) for (let i = 0; i < s.nc; i++) { const [r, c] = cPos(s, l, i); D[r]![c] = out[l * s.nc + i]!; }
  return D;
}

const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));
function matmul(A: number[][], B: number[][], C: number[][], op: (a: number, b: number) => number): number[][] {
  return C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + op(a, B[k]![j]!), c)));
}
const mul = (a: number, b: number): number => a * b;

test.each([
  ['m8n8k16', 's32.s8.s8.s32', -128, 127], ['m8n8k16', 's32.u8.u8.s32', 0, 255],
  ['m8n8k32', 's32.s4.s4.s32', -8, 7], ['m8n8k32', 's32.u4.u4.s32', 0, 15],
  ['m16n8k32', 's32.s4.s4.s32', -8, 7], ['m16n8k32', 's32.u4.s4.s32', 0, 15],
  ['m16n8k64', 's32.s4.s4.s32', -8, 7], ['m16n8k64', 's32.u4.u4.s32', 0, 15],
])('mma %s %s equals A*B+C', (shape, types, lo, hi) => {
  const s = SHAPES[`${shape}/${types.includes('4') ? 4 : 8}`]!;
  const span = hi - lo + 1;
  const bSigned = types.split('.')[2]!.startsWith('s');
  const A = mat(s.m, s.k, (i, j) => lo + ((i * 37 + j * 11) % span));
  const B = mat(s.k, s.n, (i, j) => (bSigned ? -Math.floor(span / 2) : 0) + ((i * 13 + j * 29) % span));
  const C = mat(s.m, s.n, (i, j) => (i - j) * 1000);
  expect(run(shape, types, A, B, C)).toEqual(matmul(A, B, C, mul));
});

test.each([
  ['m8n8k128', 'xor'], ['m8n8k128', 'and'], ['m16n8k128', 'xor'], ['m16n8k128', 'and'], ['m16n8k256', 'xor'], ['m16n8k256', 'and'],
])('mma %s .b1 .%s.popc counts the bits of A op B', (shape, op) => {
  const s = SHAPES[`${shape}/1`]!;
  const A = mat(s.m, s.k, (i, j) => ((i * 7 + j * 3 + ((j * j) >> 3)) % 5 === 0 ? 1 : 0));
  const B = mat(s.k, s.n, (i, j) => ((i * 5 + j * 11) % 3 === 0 ? 1 : 0));
  const C = mat(s.m, s.n, (i, j) => i * 100 + j);
  const f = op === 'xor' ? (a: number, b: number): number => a ^ b : (a: number, b: number): number => a & b;
  // the bit operation follows the types, as the ISA writes it
  expect(run(shape, 's32.b1.b1.s32', A, B, C, '', `.${op}.popc`)).toEqual(matmul(A, B, C, f));
});

test('s4 .satfinite clamps the s32 sum', () => {
  const s = SHAPES['m16n8k64/4']!;
  const A = mat(s.m, s.k, () => -8), B = mat(s.k, s.n, () => -8);
  const C = mat(s.m, s.n, () => 2147483647 - 100); // + 64 * 64 = 4096 overflows
  expect(run('m16n8k64', 's32.s4.s4.s32', A, B, C, '.satfinite')[0]![0]).toBe(2147483647);
  expect(run('m16n8k64', 's32.s4.s4.s32', A, B, C)[0]![0]).toBe((2147483647 - 100 + 4096) | 0);
});
