/**
 * mma.sync m16n8k8 / m16n8k16 with f16/bf16 inputs: each lane loads its fragment registers from a
 * buffer, the test places the matrices there through the fragment layouts of the PTX ISA (written
 * out again here, independently of src/exec/tensor/layouts.ts), and compares D with a plain
 * matrix multiply.
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';

type Half = 'f16' | 'bf16';
interface Variant { k: 8 | 16; ab: Half; acc: 'f32' | 'f16'; inPlace?: boolean }

/** Exact binary16 / bfloat16 encoding of a value that the format represents exactly (normals and 0). */
function enc(x: number, t: Half): number {
  if (t === 'bf16') { const f = new Float32Array([x]); return new Uint32Array(f.buffer)[0]! >>> 16; }
  if (x === 0) return 0;
  const s = x < 0 ? 0x8000 : 0;
  const a = Math.abs(x);
  const e = Math.floor(Math.log2(a));
  const mant = (a / 2 ** e - 1) * 1024;
  if (!Number.isInteger(mant) || e < -14 || e > 15) throw new Error(`test value ${x} is not an exact f16 normal`);
  return s | ((e + 15) << 10) | mant;
}
function decF16(h: number): number {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

// PTX ISA "Matrix fragments for mma.m16n8k16 / m16n8k8" (f16/bf16): groupID = lane>>2, tig = lane%4
const g = (l: number): number => l >> 2, tig = (l: number): number => l % 4;
const aPos = (k: number, l: number, i: number): [number, number] =>
  [i % 4 < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1) + (k === 16 && i >= 4 ? 8 : 0)];
const bPos = (l: number, i: number): [number, number] => [tig(l) * 2 + (i & 1) + (i >= 2 ? 8 : 0), g(l)];
const cPos = (l: number, i: number): [number, number] => [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)];

function kernel(v: Variant): { ptx: string; nA: number; nB: number; nC: number } {
  const nA = v.k / 4, nB = v.k / 8, nC = v.acc === 'f32' ? 4 : 2;
  const ct = v.acc === 'f32' ? 'f32' : 'b32';
  const n = nA + nB + nC;
  const lines: string[] = [];
  let off = 0;
  for (let i = 0; i < nA; i++) lines.push(`ld.global.b32 %a${i}, [%rd4+${4 * off++}];`);
  for (let i = 0; i < nB; i++) lines.push(`ld.global.b32 %b${i}, [%rd4+${4 * off++}];`);
  for (let i = 0; i < nC; i++) lines.push(`ld.global.${ct} %c${i}, [%rd4+${4 * off++}];`);
  const list = (p: string, m: number): string => `{${Array.from({ length: m }, (_, i) => `%${p}${i}`).join(', ')}}`;
  const d = v.inPlace ? 'c' : 'd';
  const types = v.ab === 'bf16' ? `${v.acc}.bf16.bf16.${v.acc}` : `${v.acc}.f16.f16.${v.acc}`;
  lines.push(`mma.sync.aligned.m16n8k${v.k}.row.col.${types} ${list(d, nC)}, ${list('a', nA)}, ${list('b', nB)}, ${list('c', nC)};`);
  for (let i = 0; i < nC; i++) lines.push(`st.global.${ct} [%rd6+${4 * i}], %${d}${i};`);
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %a<4>; .reg .b32 %b<2>; .reg .${ct} %c<4>; .reg .${ct} %d<4>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, ${4 * n}; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, ${4 * nC}; add.s64 %rd6, %rd2, %rd5;
  ${lines.join('\n  ')}
  ret;
}`;
  return { ptx, nA, nB, nC };
}

/** Runs the variant on matrices A (16xK), B (Kx8), C (16x8) and returns D (16x8) as numbers. */
function runMma(v: Variant, A: number[][], B: number[][], C: number[][]): number[][] {
  const { ptx, nA, nB, nC } = kernel(v);
  const loaded = loadPtx(ptx, 'mma.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded)}`);
  const n = nA + nB + nC;
  const inp = new Uint32Array(32 * n);
  const h16 = new Uint16Array(inp.buffer);
  const f32 = new Float32Array(inp.buffer);
  for (let l = 0; l < 32; l++) {
    const w = l * n;
    for (let i = 0; i < 2 * nA; i++) { const [r, c] = aPos(v.k, l, i); h16[2 * w + i] = enc(A[r]![c]!, v.ab); }
    for (let i = 0; i < 2 * nB; i++) { const [r, c] = bPos(l, i); h16[2 * (w + nA) + i] = enc(B[r]![c]!, v.ab); }
    for (let i = 0; i < 4; i++) {
      const [r, c] = cPos(l, i);
      if (v.acc === 'f32') f32[w + nA + nB + i] = C[r]![c]!;
      else h16[2 * (w + nA + nB) + i] = enc(C[r]![c]!, 'f16');
    }
  }
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u32', count: 32 * n, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u32', count: 32 * nC, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? "ok" : JSON.stringify(res)).toBe("ok");
  const b = m.buffers[1]!.alloc.base;
  const bytes = m.arena.bank.u8.slice(b, b + 4 * 32 * nC);
  const out32 = new Float32Array(bytes.buffer);
  const out16 = new Uint16Array(bytes.buffer);
  const D = Array.from({ length: 16 }, () => new Array<number>(8).fill(NaN));
  for (let l = 0; l < 32; l++) for (let i = 0; i < 4; i++) {
    const [r, c] = cPos(l, i);
    D[r]![c] = v.acc === 'f32' ? out32[l * 4 + i]! : decF16(out16[l * 4 + i]!);
  }
  return D;
}

function matmul(A: number[][], B: number[][], C: number[][]): number[][] {
  return C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + a * B[k]![j]!, c)));
}
const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));

// small multiples of 1/4: every product and sum is exact in f16/bf16/f32, so any summation order agrees
const smallA = (k: number): number[][] => mat(16, k, (i, j) => (((i * 5 + j * 3) % 9) - 4) / 4);
const smallB = (k: number): number[][] => mat(k, 8, (i, j) => (((i * 7 + j * 2) % 5) - 2) / 2);
const smallC = mat(16, 8, (i, j) => i - j);

test.each([
  { k: 16, ab: 'f16', acc: 'f32', inPlace: false },
  { k: 8, ab: 'f16', acc: 'f32' },
  { k: 16, ab: 'bf16', acc: 'f32' },
  { k: 8, ab: 'bf16', acc: 'f32' },
  { k: 16, ab: 'f16', acc: 'f16' },
  { k: 8, ab: 'f16', acc: 'f16' },
  { k: 16, ab: 'f16', acc: 'f32', inPlace: true },
].map((v) => ({ inPlace: false, ...v })) as Variant[])('mma m16n8k$k $ab -> $acc (in place: $inPlace) equals A*B+C', (v) => {
  const A = smallA(v.k), B = smallB(v.k);
  expect(runMma(v, A, B, smallC)).toEqual(matmul(A, B, smallC));
});

test('f16 products accumulate in f32: 256*256 does not overflow to infinity', () => {
  // 256*256 = 65536 exceeds the f16 maximum (65504) but is exact in f32
  const A = mat(16, 16, (i, j) => (j === 0 ? 256 : 0));
  const B = mat(16, 8, (i, j) => (i === 0 ? 256 : 0));
  const C = mat(16, 8, () => 1);
  const D = runMma({ k: 16, ab: 'f16', acc: 'f32' }, A, B, C);
  expect(D.flat().every((x) => x === 65537)).toBe(true);
});

test('unsupported mma shapes are a located error at load, not a crash', () => {
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .f64 %d<2>;
  mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%d0}, {%d1}, {%d0, %d1};
  ret;
}`;
  const loaded = loadPtx(ptx, 'bad.ptx');
  const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [] };
  const res = new Machine(loaded.program!, launch, DEFAULT_RUN_OPTIONS).run();
  expect(res.fault?.kind).toBe('unsupported');
  expect(res.fault?.pc).toBe(0);
  const msg = res.fault?.message ?? '';
  expect(msg).toContain('m8n8k4');
  expect(msg).toContain('not supported');
});
