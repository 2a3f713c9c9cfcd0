/**
 * Shared loads of a block from one address register (src/exec/block/hoist.ts: one check per
 * register and lane for the whole group, the loaded words kept in locals). Values by hand: each
 * lane stores buf[l] = 3l + 1 and buf[l + 32] = 3(l + 32) + 1, then sums buf[l] + buf[l + 1] +
 * buf[l + 2] = 9l + 12 from [%r6], [%r6+4], [%r6+8]. With `bad`, lane 7's address is 2 bytes off:
 * the warp stops at the first load (pc 15), lane 7, nothing summed, as one instruction at a time.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';

function sumPtx(bad: boolean): string {
  return `.version 7.0
.target sm_80
.address_size 64
.visible .entry s(.param .u64 out)
{
  .reg .pred %p<2>; .reg .u32 %r<12>; .reg .u64 %rd<6>;
  .shared .align 4 .b8 buf[512];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, buf;
  shl.b32 %r2, %r1, 2;
  add.u32 %r3, %r9, %r2;
  mul.lo.u32 %r4, %r1, 3;
  add.u32 %r4, %r4, 1;
  st.shared.u32 [%r3], %r4;
  add.u32 %r4, %r4, 96;
  st.shared.u32 [%r3+128], %r4;
  setp.eq.u32 %p1, %r1, ${bad ? 7 : 99};
  selp.u32 %r5, 2, 0, %p1;
  add.u32 %r6, %r3, %r5;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  bar.sync 0;
  ld.shared.u32 %r7, [%r6];
  ld.shared.u32 %r8, [%r6+4];
  add.u32 %r10, %r7, %r8;
  ld.shared.u32 %r11, [%r6+8];
  add.u32 %r10, %r10, %r11;
  bar.sync 0;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}`;
}

function run(bad: boolean, blocks: boolean): { m: Machine; out: number[] } {
  const program = loadPtx(sumPtx(bad), 'sum.ptx').program!;
  const m = new Machine(program, {
    kernel: 's', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 32, init: undefined, file: undefined }],
  }, { ...DEFAULT_RUN_OPTIONS, blocks });
  m.run();
  const base = m.buffers[0]!.alloc.base >> 2;
  return { m, out: Array.from(m.arena.bank.u32.subarray(base, base + 32)) };
}

describe('shared loads checked once per address register', () => {
  test('every lane sums its three words, as one instruction at a time does', () => {
    const on = run(false, true);
    const off = run(false, false);
    expect(on.m.fault).toBeUndefined();
    expect(on.out).toEqual(Array.from({ length: 32 }, (_, l) => 9 * l + 12));
    expect([on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });

  test('a misaligned lane stops the warp at the group\'s first load and that lane', () => {
    const on = run(true, true);
    const off = run(true, false);
    expect([on.m.fault?.kind, on.m.fault?.lane, on.m.fault?.pc]).toEqual(['misaligned', 7, 15]);
    expect(on.out).toEqual(new Array<number>(32).fill(0));
    expect([on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });
});
