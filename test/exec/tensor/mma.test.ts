/**
 * mma.sync for the sm_80 shapes: each lane loads its fragment registers from a buffer, the test
 * places the matrices there through the fragment layouts of the PTX ISA (written out again here,
 * independently of src/exec/tensor/layouts.ts), and compares D with a plain matrix multiply.
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';

type In = 'f16' | 'bf16' | 'tf32' | 's8' | 'u8' | 'f64';
type Acc = 'f32' | 'f16' | 's32' | 'f64';
interface Variant { shape: string; ab: In; acc: Acc; inPlace: boolean; sat: boolean }

const g = (l: number): number => l >> 2, tig = (l: number): number => l % 4;
type P = [number, number];
/** The ISA's fragment layouts ("Matrix fragments for mma.m16n8k*" and "mma.m8n8k4 .f64"). */
const LAYOUT: Record<string, { m: number; n: number; k: number; a: (l: number, i: number) => P; b: (l: number, i: number) => P; c: (l: number, i: number) => P; na: number; nb: number; nc: number }> = {};
const c16 = (l: number, i: number): P => [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)];
LAYOUT['m16n8k16/16'] = { m: 16, n: 8, k: 16, na: 8, nb: 4, nc: 4, c: c16,
  a: (l, i) => [[0, 1, 4, 5].includes(i) ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1) + (i < 4 ? 0 : 8)],
  b: (l, i) => [tig(l) * 2 + (i & 1) + (i < 2 ? 0 : 8), g(l)] };
LAYOUT['m16n8k8/16'] = { m: 16, n: 8, k: 8, na: 4, nb: 2, nc: 4, c: c16,
  a: (l, i) => [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)], b: (l, i) => [tig(l) * 2 + i, g(l)] };
LAYOUT['m16n8k8/32'] = { m: 16, n: 8, k: 8, na: 4, nb: 2, nc: 4, c: c16,
  a: (l, i) => [i === 0 || i === 2 ? g(l) : g(l) + 8, i < 2 ? tig(l) : tig(l) + 4], b: (l, i) => [i === 0 ? tig(l) : tig(l) + 4, g(l)] };
LAYOUT['m16n8k4/32'] = { m: 16, n: 8, k: 4, na: 2, nb: 1, nc: 4, c: c16,
  a: (l, i) => [i === 0 ? g(l) : g(l) + 8, tig(l)], b: (l) => [tig(l), g(l)] };
LAYOUT['m16n8k16/8'] = { m: 16, n: 8, k: 16, na: 8, nb: 4, nc: 4, c: c16,
  a: (l, i) => [i < 4 ? g(l) : g(l) + 8, tig(l) * 4 + (i % 4)], b: (l, i) => [tig(l) * 4 + i, g(l)] };
LAYOUT['m16n8k32/8'] = { m: 16, n: 8, k: 32, na: 16, nb: 8, nc: 4, c: c16,
  a: (l, i) => [(i < 4 || (i >= 8 && i < 12)) ? g(l) : g(l) + 8, tig(l) * 4 + (i % 4) + (i < 8 ? 0 : 16)],
  b: (l, i) => [tig(l) * 4 + (i % 4) + (i < 4 ? 0 : 16), g(l)] };
LAYOUT['m8n8k4/64'] = { m: 8, n: 8, k: 4, na: 1, nb: 1, nc: 2,
  a: (l) => [g(l), tig(l)], b: (l) => [tig(l), g(l)], c: (l, i) => [g(l), tig(l) * 2 + i] };

const BITS: Record<In, number> = { f16: 16, bf16: 16, tf32: 32, s8: 8, u8: 8, f64: 64 };

/** Exact binary16 encoding of a value that binary16 represents exactly (normals and 0). */
function encF16(x: number): number {
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
const f32bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;

function kernel(v: Variant, regBytes: { a: number; b: number; c: number; na: number; nb: number; nc: number }): string {
  const ab = v.ab === 'f64' ? 'f64' : 'b32';
  const ct = v.acc === 'f64' ? 'f64' : v.acc === 'f32' ? 'f32' : v.acc === 's32' ? 's32' : 'b32';
  const lines: string[] = [];
  let off = 0;
  for (let i = 0; i < regBytes.na; i++, off += regBytes.a) lines.push(`ld.global.${ab} %a${i}, [%rd4+${off}];`);
  for (let i = 0; i < regBytes.nb; i++, off += regBytes.b) lines.push(`ld.global.${ab} %b${i}, [%rd4+${off}];`);
  for (let i = 0; i < regBytes.nc; i++, off += regBytes.c) lines.push(`ld.global.${ct} %c${i}, [%rd4+${off}];`);
  const list = (p: string, m: number): string => `{${Array.from({ length: m }, (_, i) => `%${p}${i}`).join(', ')}}`;
  const d = v.inPlace ? 'c' : 'd';
  const types = v.ab === 'bf16' || v.ab === 'tf32' ? `${v.acc}.${v.ab}.${v.ab}.${v.acc}` : `${v.acc}.${v.ab}.${v.ab}.${v.acc}`;
  lines.push(`mma.sync.aligned.${v.shape}.row.col${v.sat ? '.satfinite' : ''}.${types} ${list(d, regBytes.nc)}, ${list('a', regBytes.na)}, ${list('b', regBytes.nb)}, ${list('c', regBytes.nc)};`);
  for (let i = 0; i < regBytes.nc; i++) lines.push(`st.global.${ct} [%rd6+${regBytes.c * i}], %${d}${i};`);
  return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .${ab} %a<16>; .reg .${ab} %b<8>; .reg .${ct} %c<4>; .reg .${ct} %d<4>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, ${off}; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, ${regBytes.c * regBytes.nc}; add.s64 %rd6, %rd2, %rd5;
  ${lines.join('\n  ')}
  ret;
}`;
}

/** Runs the variant on A (MxK), B (KxN), C (MxN) and returns D (MxN) as numbers. */
function runMma(v: Variant, A: number[][], B: number[][], C: number[][]): number[][] {
  const bits = BITS[v.ab];
  const L = LAYOUT[`${v.shape}/${bits}`]!;
  const per = Math.max(1, 32 / bits);
  const rb = {
    a: bits === 64 ? 8 : 4, b: bits === 64 ? 8 : 4, c: v.acc === 'f64' ? 8 : 4,
    na: Math.ceil(L.na / per), nb: Math.ceil(L.nb / per), nc: v.acc === 'f16' ? L.nc / 2 : L.nc,
  };
  const rec = rb.a * rb.na + rb.b * rb.nb + rb.c * rb.nc;
  const loaded = loadPtx(kernel(v, rb), 'mma.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded)}`);
  const inp = new DataView(new ArrayBuffer(32 * rec));
  const put = (at: number, x: number, t: In | Acc): void => {
    switch (t) {
      case 'f16': inp.setUint16(at, encF16(x), true); break;
      case 'bf16': inp.setUint16(at, f32bits(x) >>> 16, true); break;
      case 'tf32': case 'f32': inp.setFloat32(at, x, true); break;
      case 's8': inp.setInt8(at, x); break;
      case 'u8': inp.setUint8(at, x); break;
      case 's32': inp.setInt32(at, x, true); break;
      default: inp.setFloat64(at, x, true);
    }
  };
  const eb = bits / 8;
  for (let l = 0; l < 32; l++) {
    const w = l * rec;
    for (let i = 0; i < L.na; i++) { const [r, c] = L.a(l, i); put(w + i * eb, A[r]![c]!, v.ab); }
    const bo = w + rb.a * rb.na;
    for (let i = 0; i < L.nb; i++) { const [r, c] = L.b(l, i); put(bo + i * eb, B[r]![c]!, v.ab); }
    const co = bo + rb.b * rb.nb;
    for (let i = 0; i < L.nc; i++) { const [r, c] = L.c(l, i); put(co + i * (v.acc === 'f16' ? 2 : rb.c), C[r]![c]!, v.acc); }
  }
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u8', count: 32 * rec, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u8', count: 32 * rb.c * rb.nc, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new DataView(m.arena.bank.u8.slice(base, base + 32 * rb.c * rb.nc).buffer);
  const D = Array.from({ length: L.m }, () => new Array<number>(L.n).fill(NaN));
  for (let l = 0; l < 32; l++) for (let i = 0; i < L.nc; i++) {
    const [r, c] = L.c(l, i);
    const at = l * rb.c * rb.nc;
    D[r]![c] = v.acc === 'f32' ? out.getFloat32(at + 4 * i, true)
      : v.acc === 'f16' ? decF16(out.getUint16(at + 2 * i, true))
        : v.acc === 's32' ? out.getInt32(at + 4 * i, true) : out.getFloat64(at + 8 * i, true);
  }
  return D;
}

function matmul(A: number[][], B: number[][], C: number[][]): number[][] {
  return C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + a * B[k]![j]!, c)));
}
const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));

const dims = (v: Variant): { m: number; n: number; k: number } => LAYOUT[`${v.shape}/${BITS[v.ab]}`]!;
// small multiples of 1/4 (or small integers): every product and partial sum is exact in each
// input and accumulator format, so any summation order agrees with the plain multiply
function inputs(v: Variant): [number[][], number[][], number[][]] {
  const { m, n, k } = dims(v);
  if (v.ab === 's8') return [mat(m, k, (i, j) => ((i * 37 + j * 11) % 256) - 128), mat(k, n, (i, j) => ((i * 13 + j * 29) % 256) - 128), mat(m, n, (i, j) => (i - j) * 1000)];
  if (v.ab === 'u8') return [mat(m, k, (i, j) => (i * 37 + j * 11) % 256), mat(k, n, (i, j) => (i * 13 + j * 29) % 256), mat(m, n, (i, j) => i * 7 - j)];
  return [mat(m, k, (i, j) => (((i * 5 + j * 3) % 9) - 4) / 4), mat(k, n, (i, j) => (((i * 7 + j * 2) % 5) - 2) / 2), mat(m, n, (i, j) => i - j)];
}

const V = (shape: string, ab: In, acc: Acc, extra: Partial<Variant> = {}): Variant => ({ shape, ab, acc, inPlace: false, sat: false, ...extra });

test.each([
  V('m16n8k16', 'f16', 'f32'), V('m16n8k8', 'f16', 'f32'), V('m16n8k16', 'bf16', 'f32'), V('m16n8k8', 'bf16', 'f32'),
  V('m16n8k16', 'f16', 'f16'), V('m16n8k8', 'f16', 'f16'), V('m16n8k16', 'f16', 'f32', { inPlace: true }),
  V('m16n8k8', 'tf32', 'f32'), V('m16n8k4', 'tf32', 'f32'),
  V('m16n8k16', 's8', 's32'), V('m16n8k32', 's8', 's32'), V('m16n8k16', 'u8', 's32'), V('m16n8k32', 'u8', 's32', { inPlace: true }),
  V('m8n8k4', 'f64', 'f64'),
])('mma $shape $ab -> $acc (in place: $inPlace) equals A*B+C', (v) => {
  const [A, B, C] = inputs(v);
  expect(runMma(v, A, B, C)).toEqual(matmul(A, B, C));
});

test('f16 products accumulate in f32: 256*256 does not overflow to infinity', () => {
  // 256*256 = 65536 exceeds the f16 maximum (65504) but is exact in f32
  const A = mat(16, 16, (_i, j) => (j === 0 ? 256 : 0));
  const B = mat(16, 8, (i) => (i === 0 ? 256 : 0));
  const D = runMma(V('m16n8k16', 'f16', 'f32'), A, B, mat(16, 8, () => 1));
  expect(D.flat().every((x) => x === 65537)).toBe(true);
});

test('tf32 operands ignore the low 13 mantissa bits', () => {
  // 1 + 2^-12 is not a tf32 value (10 mantissa bits): read as 1
  const A = mat(16, 8, (i, j) => (i === j ? 1 + 2 ** -12 : 0));
  const B = mat(8, 8, (i, j) => (i === j ? 1 : 0));
  const D = runMma(V('m16n8k8', 'tf32', 'f32'), A, B, mat(16, 8, () => 0));
  expect(D[3]![3]).toBe(1);
});

test('s32 accumulation wraps; .satfinite clamps', () => {
  const A = mat(16, 32, () => 127), B = mat(32, 8, () => 127);
  const C = mat(16, 8, () => 2147483647 - 1000);
  // 32 * 127 * 127 = 516128 over the top
  const wrapped = ((2147483647 - 1000 + 516128) | 0);
  expect(runMma(V('m16n8k32', 's8', 's32'), A, B, C)[0]![0]).toBe(wrapped);
  expect(runMma(V('m16n8k32', 's8', 's32', { sat: true }), A, B, C)[0]![0]).toBe(2147483647);
});

test('unsupported mma forms are a located fault, not a crash', () => {
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .f32 %f<8>; .reg .b32 %r<8>;
  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};
  ret;
}`;
  const loaded = loadPtx(ptx, 'bad.ptx');
  const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [] };
  const res = new Machine(loaded.program!, launch, DEFAULT_RUN_OPTIONS).run();
  expect(res.fault?.kind).toBe('unsupported');
  expect(res.fault?.pc).toBe(0);
  // .e4m3 needs sm_89: on an sm_80 module it is refused where it stands
  expect(res.fault?.message).toContain('e4m3');
  expect(res.fault?.message).toContain('need sm_89 or higher');
});
