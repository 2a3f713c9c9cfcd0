/**
 * cp.async: the nvcc output of test/corpus/cp_async_pipeline.cu (double-buffered
 * __pipeline_memcpy_async / commit / wait_prior, and cuda::pipeline memcpy_async) runs and gives
 * what the CUDA source computes; a hand-written kernel checks src-size zero fill and ignore-src.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Launch, LaunchArg } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';
import { ROOT } from '../../helpers.js';

function run(ptx: string, kernel: string, block: number, args: LaunchArg[], outIndex: number, outBytes: number): DataView {
  const loaded = loadPtx(ptx, 'k.ptx');
  if (!loaded.program) throw new Error(`kernel does not load: ${JSON.stringify(loaded)}`);
  const launch: Launch = { kernel, grid: [1, 1, 1], block: [block, 1, 1], sharedBytes: 0, args };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const b = m.buffers[outIndex]!.alloc.base;
  return new DataView(m.arena.bank.u8.slice(b, b + outBytes).buffer);
}
const buf = (name: string, type: 'f32' | 's32' | 'u8', count: number, init?: Uint8Array): LaunchArg =>
  ({ kind: 'buffer', name, type, count, init, file: undefined });

test.each(['G', 'O3'])('doubleBuffered (%s): out[k*128+t] is in[k*128+(t+1)%128] with components reversed', (v) => {
  const ptx = readFileSync(join(ROOT, 'test', 'corpus', `cp_async_pipeline.${v}.ptx`), 'utf8');
  const tiles = 3;
  const input = new Float32Array(tiles * 128 * 4).map((_, i) => i);
  const out = run(ptx, '_Z14doubleBufferedPK6float4PS_i', 128,
    [buf('in', 'f32', input.length, new Uint8Array(input.buffer)), buf('out', 'f32', input.length), { kind: 'scalar', name: 'tiles', type: 's32', value: tiles }], 1, input.byteLength);
  for (let k = 0; k < tiles; k++) for (let t = 0; t < 128; t++) {
    const src = (k * 128 + ((t + 1) & 127)) * 4;
    for (let c = 0; c < 4; c++) expect(out.getFloat32(((k * 128 + t) * 4 + c) * 4, true)).toBe(input[src + 3 - c]);
  }
});

test.each(['G', 'O3'])('pipelineCopy (%s): out[base+t] = 2 * in[base+255-t]', (v) => {
  const ptx = readFileSync(join(ROOT, 'test', 'corpus', `cp_async_pipeline.${v}.ptx`), 'utf8');
  const n = 512;
  const input = new Int32Array(n).map((_, i) => i * 3 + 1);
  const out = run(ptx, '_Z12pipelineCopyPKiPii', 256,
    [buf('in', 's32', n, new Uint8Array(input.buffer)), buf('out', 's32', n), { kind: 'scalar', name: 'n', type: 's32', value: n }], 1, 4 * n);
  for (let base = 0; base < n; base += 256) for (let t = 0; t < 256; t++) {
    expect(out.getInt32((base + t) * 4, true)).toBe(2 * input[base + 255 - t]!);
  }
});

test('src-size copies that many bytes and zero-fills the rest; ignore-src fills zeros', () => {
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .shared .align 16 .b8 s[64];
  .reg .b64 %rd<4>; .reg .b32 %r<12>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, s;
  mov.u32 %r9, -1;
  st.shared.v4.u32 [%r1], {%r9, %r9, %r9, %r9}; st.shared.v4.u32 [%r1+16], {%r9, %r9, %r9, %r9}; st.shared.v4.u32 [%r1+32], {%r9, %r9, %r9, %r9};
  mov.u32 %r2, 5;
  cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;
  add.u32 %r3, %r1, 16;
  cp.async.ca.shared.global [%r3], [%rd1], 8;
  setp.eq.u32 %p1, %r2, 5;
  add.u32 %r4, %r1, 32;
  cp.async.ca.shared.global [%r4], [%rd1], 16, %p1;
  cp.async.commit_group;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r1]; st.global.v4.u32 [%rd2], {%r5, %r6, %r7, %r8};
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r1+16]; st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r1+32]; st.global.v4.u32 [%rd2+32], {%r5, %r6, %r7, %r8};
  ret;
}`;
  const input = new Uint8Array(16).map((_, i) => 0xa0 + i);
  // shared memory is first filled with 0xff, so every zero below was written by the copy
  const out = run(ptx, 'k', 1, [buf('in', 'u8', 16, input), buf('out', 'u8', 48)], 1, 48);
  const bytes = Array.from({ length: 48 }, (_, i) => out.getUint8(i));
  expect(bytes.slice(0, 16)).toEqual([0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  expect(bytes.slice(16, 32)).toEqual([0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 255, 255, 255, 255, 255, 255, 255, 255]);
  expect(bytes.slice(32, 48)).toEqual(new Array<number>(16).fill(0));
});
