/**
 * wmma for packed operands, the form nvcc emits for wmma::experimental::precision::s4/u4/b1:
 * m8n8k32 (.s4/.u4) and m8n8k128 (.b1 with bmmaBitOpXOR/AND). A is row-major and B column-major
 * in memory, elements packed from the low bits of each byte up, strides in elements. The stored
 * D is compared with a plain multiply (for .b1: C + the count of k where a op b is 1).
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { unsupportedInstructions } from '../../../src/exec/support.js';
import { loadPtx } from '../../../src/ptx/index.js';

function run(type: 's4' | 'u4' | 'b1', op: string, A: number[][], B: number[][], C: number[][]): number[][] {
  const k = type === 'b1' ? 128 : 32, bits = type === 'b1' ? 1 : 4;
  const shape = `m8n8k${k}`;
  const mem = new Uint8Array(2 * (8 * k * bits) / 8 + 8 * 8 * 4);
  const put = (elem: number, x: number, base: number): void => {
    const bit = elem * bits;
    const v = ((x % 2 ** bits) + 2 ** bits) % 2 ** bits;
    mem[base + (bit >> 3)]! |= v << (bit & 7);
  };
  const offB = (8 * k * bits) / 8, offC = 2 * offB;
  for (let r = 0; r < 8; r++) for (let c = 0; c < k; c++) put(r * k + c, A[r]![c]!, 0); // row-major, stride k
  for (let r = 0; r < k; r++) for (let c = 0; c < 8; c++) put(c * k + r, B[r]![c]!, offB); // col-major, stride k
  const cv = new DataView(mem.buffer);
  for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) cv.setInt32(offC + 4 * (r * 8 + c), C[r]![c]!, true);
  const mma = type === 'b1'
    ? `wmma.mma.${op}.popc.sync.aligned.row.col.${shape}.s32.b1.b1.s32`
    : `wmma.mma.sync.aligned.row.col.${shape}.s32.${type}.${type}.s32`;
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 out)
{
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];
  add.s64 %rd3, %rd1, ${offB}; add.s64 %rd4, %rd1, ${offC};
  mov.u32 %r1, ${k}; mov.u32 %r2, 8;
  wmma.load.a.sync.aligned.row.${shape}.global.${type} {%r3}, [%rd1], %r1;
  wmma.load.b.sync.aligned.col.${shape}.global.${type} {%r4}, [%rd3], %r1;
  wmma.load.c.sync.aligned.row.${shape}.global.s32 {%r5, %r6}, [%rd4], %r2;
  ${mma} {%r7, %r8}, {%r3}, {%r4}, {%r5, %r6};
  wmma.store.d.sync.aligned.row.${shape}.global.s32 [%rd2], {%r7, %r8}, %r2;
  ret;
}`;
  const loaded = loadPtx(ptx, 'wmma.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded.diagnostics)}`);
  expect(unsupportedInstructions(loaded.program).map((d) => d.message)).toEqual([]);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'p', type: 'u8', count: mem.length, init: mem, file: undefined },
      { kind: 'buffer', name: 'out', type: 's32', count: 64, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new Int32Array(m.arena.bank.u8.slice(base, base + 256).buffer);
  return Array.from({ length: 8 }, (_, r) => Array.from(out.slice(r * 8, r * 8 + 8)));
}

const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] =>
  Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));
const matmul = (A: number[][], B: number[][], C: number[][], op: (a: number, b: number) => number): number[][] =>
  C.map((row, i) => row.map((c, j) => A[i]!.reduce((s, a, k) => s + op(a, B[k]![j]!), c)));

test.each([['s4', -8], ['u4', 0]] as const)('wmma m8n8k32 .%s: load, mma, store equal A*B+C', (type, lo) => {
  const A = mat(8, 32, (i, j) => lo + ((i * 37 + j * 11) % 16));
  const B = mat(32, 8, (i, j) => lo + ((i * 13 + j * 29) % 16));
  const C = mat(8, 8, (i, j) => i * 10 - j);
  expect(run(type, '', A, B, C)).toEqual(matmul(A, B, C, (a, b) => a * b));
});

test.each(['xor', 'and'])('wmma m8n8k128 .b1 .%s.popc counts bits', (op) => {
  const A = mat(8, 128, (i, j) => ((i * 7 + j * 3 + ((j * j) >> 3)) % 5 === 0 ? 1 : 0));
  const B = mat(128, 8, (i, j) => ((i * 5 + j * 11) % 3 === 0 ? 1 : 0));
  const C = mat(8, 8, (i, j) => i * 100 + j);
  const f = op === 'xor' ? (a: number, b: number): number => a ^ b : (a: number, b: number): number => a & b;
  expect(run('b1', op, A, B, C)).toEqual(matmul(A, B, C, f));
});
