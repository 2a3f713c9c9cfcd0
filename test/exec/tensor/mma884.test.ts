/**
 * mma.m8n8k4 with .f16 inputs: four independent 8x8x4 products per warp (computation q by lanes
 * 4q..4q+3 and 16+4q..16+4q+3). The test places A, B, C of each computation through the fragment
 * layouts of the PTX ISA ("Matrix Fragments for mma.m8n8k4 with .f16 floating point type", written
 * out again here) and compares D with a plain multiply per computation.
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { unsupportedInstructions } from '../../../src/exec/support.js';
import { loadPtx } from '../../../src/ptx/index.js';

type P = [number, number];
const hi = (l: number): number => (l < 16 ? 0 : 4);
const LAYOUT = {
  aRow: (l: number, i: number): P => [(l % 4) + hi(l), i],
  aCol: (l: number, i: number): P => [(i % 4) + hi(l), l % 4],
  bRow: (l: number, i: number): P => [l % 4, i + hi(l)],
  bCol: (l: number, i: number): P => [i, (l % 4) + hi(l)],
  cF16: (l: number, i: number): P => [(l % 4) + hi(l), i],
  cF32: (l: number, i: number): P => [((l & 1) + (i & 2)) + hi(l), (i & 4) + (l & 2) + (i & 1)],
};

function encF16(x: number): number {
  if (x === 0) return 0;
  const e = Math.floor(Math.log2(Math.abs(x)));
  return (x < 0 ? 0x8000 : 0) | ((e + 15) << 10) | ((Math.abs(x) / 2 ** e - 1) * 1024);
}
function decF16(h: number): number {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

function run(la: 'row' | 'col', lb: 'row' | 'col', dt: 'f16' | 'f32', ct: 'f16' | 'f32', A: number[][][], B: number[][][], C: number[][][]): number[][][] {
  const nc = ct === 'f16' ? 4 : 8, nd = dt === 'f16' ? 4 : 8;
  const words = 2 + 2 + nc;
  const inp = new DataView(new ArrayBuffer(32 * words * 4));
  const aPos = la === 'row' ? LAYOUT.aRow : LAYOUT.aCol, bPos = lb === 'row' ? LAYOUT.bRow : LAYOUT.bCol;
  const cPos = ct === 'f16' ? LAYOUT.cF16 : LAYOUT.cF32, dPos = dt === 'f16' ? LAYOUT.cF16 : LAYOUT.cF32;
  for (let l = 0; l < 32; l++) {
    const q = (l >> 2) & 3, w = l * words * 4;
    for (let i = 0; i < 4; i++) {
      const [r, c] = aPos(l, i); inp.setUint16(w + 2 * i, encF16(A[q]![r]![c]!), true);
      const [br, bc] = bPos(l, i); inp.setUint16(w + 8 + 2 * i, encF16(B[q]![br]![bc]!), true);
    }
    for (let i = 0; i < 8; i++) {
      const [r, c] = cPos(l, i);
      if (ct === 'f16') inp.setUint16(w + 16 + 2 * i, encF16(C[q]![r]![c]!), true);
      else inp.setFloat32(w + 16 + 4 * i, C[q]![r]![c]!, true);
    }
  }
  const list = (p: string, from: number, n: number): string => `{${Array.from({ length: n }, (_, i) => `%${p}${from + i}`).join(', ')}}`;
  const creg = ct === 'f16' ? 'b32' : 'f32';
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %x<4>; .reg .${creg} %c<8>; .reg .${dt === 'f16' ? 'b32' : 'f32'} %d<8>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, ${words * 4}; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, ${nd * 4}; add.s64 %rd6, %rd2, %rd5;
  ${Array.from({ length: 4 }, (_, i) => `ld.global.b32 %x${i}, [%rd4+${4 * i}];`).join(' ')}
  ${Array.from({ length: nc }, (_, i) => `ld.global.${creg} %c${i}, [%rd4+${16 + 4 * i}];`).join(' ')}
  mma.sync.aligned.m8n8k4.${la}.${lb}.${dt}.f16.f16.${ct} ${list('d', 0, nd)}, ${list('x', 0, 2)}, ${list('x', 2, 2)}, ${list('c', 0, nc)};
  ${Array.from({ length: nd }, (_, i) => `st.global.${dt === 'f16' ? 'b32' : 'f32'} [%rd6+${4 * i}], %d${i};`).join(' ')}
  ret;
}`;
  const loaded = loadPtx(ptx, 'mma884.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded.diagnostics)}`);
  expect(unsupportedInstructions(loaded.program).map((d) => d.message)).toEqual([]);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u8', count: inp.byteLength, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u8', count: 32 * nd * 4, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new DataView(m.arena.bank.u8.slice(base, base + 32 * nd * 4).buffer);
  const D = [0, 1, 2, 3].map(() => Array.from({ length: 8 }, () => new Array<number>(8).fill(NaN)));
  for (let l = 0; l < 32; l++) for (let i = 0; i < 8; i++) {
    const [r, c] = dPos(l, i);
    D[(l >> 2) & 3]![r]![c] = dt === 'f16' ? decF16(out.getUint16(l * nd * 4 + 2 * i, true)) : out.getFloat32(l * nd * 4 + 4 * i, true);
  }
  return D;
}

const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));
const matmul = (A: number[][], B: number[][], C: number[][]): number[][] =>
  C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + a * B[k]![j]!, c)));

test.each([
  ['row', 'col', 'f32', 'f32'], ['row', 'row', 'f32', 'f32'], ['col', 'col', 'f32', 'f32'], ['col', 'row', 'f32', 'f32'],
  ['row', 'col', 'f16', 'f16'], ['col', 'row', 'f16', 'f32'], ['row', 'row', 'f32', 'f16'],
] as const)('mma.m8n8k4.%s.%s .%s <- f16 x f16 + .%s: four products per warp', (la, lb, dt, ct) => {
  // quarters and small integers: exact in f16, so any summation order agrees
  const A = [0, 1, 2, 3].map((q) => mat(8, 4, (i, j) => (((i * 5 + j * 3 + q) % 9) - 4) / 4));
  const B = [0, 1, 2, 3].map((q) => mat(4, 8, (i, j) => (((i * 7 + j * 2 + 3 * q) % 5) - 2) / 2));
  const C = [0, 1, 2, 3].map((q) => mat(8, 8, (i, j) => i - j + q));
  expect(run(la, lb, dt, ct, A, B, C)).toEqual([0, 1, 2, 3].map((q) => matmul(A[q]!, B[q]!, C[q]!)));
});
