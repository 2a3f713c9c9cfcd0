/**
 * mbarrier: the nvcc output of test/corpus/mbarrier_barrier.cu (cuda::barrier with memcpy_async,
 * arrive/wait, arrive_and_drop) runs and gives what the CUDA source computes; a hand-written
 * kernel checks phases, tokens, parity waits and pending_count.
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

test.each(['G', 'O3'])('barrierStages (%s) computes what the CUDA source says', (v) => {
  const ptx = readFileSync(join(ROOT, 'test', 'corpus', `mbarrier_barrier.${v}.ptx`), 'utf8');
  const input = new Float32Array(256).map((_, i) => i + 0.5);
  const out = run(ptx, '_Z13barrierStagesPKfPfi', 256, [
    { kind: 'buffer', name: 'in', type: 'f32', count: 256, init: new Uint8Array(input.buffer), file: undefined },
    { kind: 'buffer', name: 'out', type: 'f32', count: 512, init: undefined, file: undefined },
    { kind: 'scalar', name: 'n', type: 's32', value: 256 },
  ], 1, 2048);
  for (let t = 0; t < 256; t++) expect(out.getFloat32(4 * t, true)).toBe(input[(t + 1) & 255]! * 2);
  for (let t = 0; t < 256; t++) expect(out.getFloat32(4 * (256 + t), true)).toBe(t < 128 ? input[t]! : 0);
});

test('phases: the last of N arrivals completes the phase; parity and token waits see it', () => {
  // 2 threads, barrier of 2. Thread 0 arrives first (phase 0 not complete: test_wait false,
  // pending_count 1); thread 1 arrives second (phase complete). Then both test again.
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<8>; .reg .b32 %r<12>; .reg .pred %p<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L1;
  mov.u32 %r2, 2;
  mbarrier.init.shared.b64 [bar], %r2;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  selp.u32 %r3, 1, 0, %p2;
  mbarrier.pending_count.b64 %r4, %rd2;
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+4], %r4;
$L1:
  bar.sync 0;
  @%p1 mbarrier.arrive.shared.b64 %rd3, [bar];
  bar.sync 0;
  @%p1 bra $L2;
  mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
  selp.u32 %r5, 1, 0, %p3;
  mov.u32 %r6, 0;
  mbarrier.try_wait.parity.shared.b64 %p4, [bar], %r6;
  selp.u32 %r7, 1, 0, %p4;
  mov.u32 %r6, 1;
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], %r6;
  selp.u32 %r8, 1, 0, %p5;
  st.global.u32 [%rd1+8], %r5;
  st.global.u32 [%rd1+12], %r7;
  st.global.u32 [%rd1+16], %r8;
$L2:
  ret;
}`;
  const out = run(ptx, 'k', 2, [{ kind: 'buffer', name: 'out', type: 's32', count: 5, init: undefined, file: undefined }], 0, 20);
  // [first test_wait, pending after first arrive, test_wait after both, parity-0 wait, parity-1 wait]
  expect([0, 4, 8, 12, 16].map((o) => out.getUint32(o, true))).toEqual([0, 1, 1, 1, 0]);
});

function noCompleteKernel(count: number): string {
  // barrier of 4 arrivals; one thread arrives with .noComplete and `count`, then reads pending_count
  return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .reg .b64 %rd<4>; .reg .b32 %r<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 4;
  mbarrier.init.shared.b64 [bar], %r1;
  mov.u32 %r2, ${count};
  mbarrier.arrive.noComplete.shared.b64 %rd2, [bar], %r2;
  mbarrier.pending_count.b64 %r3, %rd2;
  st.global.u32 [%rd1], %r3;
  ret;
}`;
}

test('mbarrier.arrive.noComplete counts arrivals without completing; completing with it is a fault', () => {
  const out = run(noCompleteKernel(3), 'k', 1, [{ kind: 'buffer', name: 'out', type: 's32', count: 1, init: undefined, file: undefined }], 0, 4);
  expect(out.getUint32(0, true)).toBe(1); // 4 expected, 3 arrived
  const loaded = loadPtx(noCompleteKernel(4), 'k.ptx');
  const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 's32', count: 1, init: undefined, file: undefined }] };
  const res = new Machine(loaded.program!, launch, DEFAULT_RUN_OPTIONS).run();
  expect(res.fault?.kind).toBe('trap');
  expect(res.fault?.message).toMatch(/would complete the barrier's phase/);
});
