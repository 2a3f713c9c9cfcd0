/**
 * wmma.load / mma / store: the test puts A, B and C in global memory with the layouts and strides
 * the instructions name, runs load -> mma -> store, and compares the stored D with a plain matrix
 * multiply (the fragment layout itself is opaque in the ISA, so only the round trip is observable).
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';

interface Case { shape: string; m: number; n: number; k: number; ab: 'f16' | 'bf16' | 's8' | 'tf32' | 'f64'; acc: 'f32' | 'f16' | 's32' | 'f64'; la: 'row' | 'col'; lb: 'row' | 'col'; lc: 'row' | 'col'; ld: 'row' | 'col'; pad: number }
const BYTES = { f16: 2, bf16: 2, s8: 1, tf32: 4, f64: 8, f32: 4, s32: 4 } as const;

function encF16(x: number): number {
  if (x === 0) return 0;
  const e = Math.floor(Math.log2(Math.abs(x)));
  return (x < 0 ? 0x8000 : 0) | ((e + 15) << 10) | ((Math.abs(x) / 2 ** e - 1) * 1024);
}
function decF16(h: number): number {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

function run(cs: Case, A: number[][], B: number[][], C: number[][]): number[][] {
  const { m, n, k } = cs;
  // strides in elements: the tile's row (or column) length plus padding
  const sa = (cs.la === 'row' ? k : m) + cs.pad, sb = (cs.lb === 'row' ? n : k) + cs.pad;
  const sc = (cs.lc === 'row' ? n : m) + cs.pad, sd = (cs.ld === 'row' ? n : m) + cs.pad;
  const ea = BYTES[cs.ab], ec = BYTES[cs.acc];
  const offB = 1024 * 8, offC = 2048 * 8;
  const buf = new DataView(new ArrayBuffer(3072 * 8));
  const put = (at: number, x: number, t: keyof typeof BYTES): void => {
    if (t === 'f16') buf.setUint16(at, encF16(x), true);
    else if (t === 'bf16') buf.setUint16(at, new Uint32Array(new Float32Array([x]).buffer)[0]! >>> 16, true);
    else if (t === 's8') buf.setInt8(at, x);
    else if (t === 'tf32' || t === 'f32') buf.setFloat32(at, x, true);
    else if (t === 's32') buf.setInt32(at, x, true);
    else buf.setFloat64(at, x, true);
  };
  const pos = (r: number, c: number, lay: string, s: number): number => (lay === 'row' ? r * s + c : c * s + r);
  A.forEach((row, r) => row.forEach((x, c) => put(pos(r, c, cs.la, sa) * ea, x, cs.ab)));
  B.forEach((row, r) => row.forEach((x, c) => put(offB + pos(r, c, cs.lb, sb) * ea, x, cs.ab)));
  C.forEach((row, r) => row.forEach((x, c) => put(offC + pos(r, c, cs.lc, sc) * ec, x, cs.acc)));
  const frag = (t: string, elems: number): number => (t === 'f64' ? Math.max(1, elems / 32) : Math.max(1, (elems / 32) * BYTES[t as keyof typeof BYTES] / 4));
  // fragment register counts as nvcc declares them (f16 A/B fragments hold 16 halves per lane)
  const nA = cs.ab === 'f16' || cs.ab === 'bf16' ? 8 : frag(cs.ab, m * k), nB = cs.ab === 'f16' || cs.ab === 'bf16' ? 8 : frag(cs.ab, k * n);
  const nC = cs.acc === 'f16' ? 4 : cs.acc === 'f64' ? 2 : 8;
  const rt = cs.ab === 'f64' ? 'f64' : 'b32', ct = cs.acc === 'f64' ? 'f64' : cs.acc === 'f32' ? 'f32' : 'b32';
  const list = (p: string, c: number): string => `{${Array.from({ length: c }, (_, i) => `%${p}${i}`).join(', ')}}`;
  const abType = cs.ab === 'f16' ? 'f16' : cs.ab;
  const mmaTypes = cs.ab === 'f16' ? `${cs.acc}.${cs.acc}` : `${cs.acc}.${cs.ab}.${cs.ab}.${cs.acc}`;
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 out)
{
  .reg .${rt} %a<8>; .reg .${rt} %b<8>; .reg .${ct} %c<8>; .reg .${ct} %d<8>; .reg .b64 %rd<8>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];
  add.s64 %rd3, %rd1, ${offB}; add.s64 %rd4, %rd1, ${offC};
  mov.u32 %r1, ${sa};
  wmma.load.a.sync.aligned.${cs.la}.${cs.shape}.global.${abType} ${list('a', nA)}, [%rd1], %r1;
  wmma.load.b.sync.aligned.${cs.lb}.${cs.shape}.global.${abType} ${list('b', nB)}, [%rd3], ${sb};
  wmma.load.c.sync.aligned.${cs.lc}.${cs.shape}.global.${cs.acc} ${list('c', nC)}, [%rd4], ${sc};
  wmma.mma.sync.aligned.${cs.la}.${cs.lb}.${cs.shape}.${mmaTypes} ${list('d', nC)}, ${list('a', nA)}, ${list('b', nB)}, ${list('c', nC)};
  wmma.store.d.sync.aligned.${cs.ld}.${cs.shape}.global.${cs.acc} [%rd2], ${list('d', nC)}, ${sd};
  ret;
}`;
  const loaded = loadPtx(ptx, 'wmma.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded)}`);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'p', type: 'u8', count: buf.byteLength, init: new Uint8Array(buf.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u8', count: 8192, init: undefined, file: undefined },
    ],
  };
  const mach = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = mach.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = mach.buffers[1]!.alloc.base;
  const out = new DataView(mach.arena.bank.u8.slice(base, base + 8192).buffer);
  return C.map((row, r) => row.map((_x, c) => {
    const at = pos(r, c, cs.ld, sd) * ec;
    return cs.acc === 'f32' ? out.getFloat32(at, true) : cs.acc === 'f16' ? decF16(out.getUint16(at, true)) : cs.acc === 's32' ? out.getInt32(at, true) : out.getFloat64(at, true);
  }));
}

const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));
const matmul = (A: number[][], B: number[][], C: number[][]): number[][] =>
  C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + a * B[k]![j]!, c)));

const base = { la: 'row', lb: 'col', lc: 'row', ld: 'row', pad: 0 } as const;
test.each([
  { ...base, shape: 'm16n16k16', m: 16, n: 16, k: 16, ab: 'f16', acc: 'f32' },
  { ...base, shape: 'm16n16k16', m: 16, n: 16, k: 16, ab: 'f16', acc: 'f32', la: 'col', lb: 'row', lc: 'col', ld: 'col', pad: 3 },
  { ...base, shape: 'm32n8k16', m: 32, n: 8, k: 16, ab: 'f16', acc: 'f16', pad: 1 },
  { ...base, shape: 'm8n32k16', m: 8, n: 32, k: 16, ab: 'bf16', acc: 'f32', lb: 'row' },
  { ...base, shape: 'm16n16k16', m: 16, n: 16, k: 16, ab: 's8', acc: 's32', ld: 'col' },
  { ...base, shape: 'm16n16k8', m: 16, n: 16, k: 8, ab: 'tf32', acc: 'f32' },
  { ...base, shape: 'm8n8k4', m: 8, n: 8, k: 4, ab: 'f64', acc: 'f64', pad: 2 },
] as Case[])('wmma $shape $ab -> $acc, a.$la b.$lb c.$lc d.$ld, pad $pad', (cs) => {
  const small = cs.ab === 's8';
  const A = mat(cs.m, cs.k, (i, j) => (small ? ((i * 7 + j * 3) % 50) - 25 : (((i * 5 + j * 3) % 9) - 4) / 4));
  const B = mat(cs.k, cs.n, (i, j) => (small ? ((i * 3 + j * 11) % 40) - 20 : (((i * 7 + j * 2) % 5) - 2) / 2));
  const C = mat(cs.m, cs.n, (i, j) => i - j);
  expect(run(cs, A, B, C)).toEqual(matmul(A, B, C));
});
