/** The benchmark kernels: hand-written PTX, one per cost profile (ALU, memory, shared+barriers, atomics). */
import type { Launch } from '../../src/exec/launch.js';

const HEADER = '.version 9.0\n.target sm_80\n.address_size 64\n';

export const KERNELS: { name: string; ptx: string; launch: Omit<Launch, 'kernel'> }[] = [
  {
    name: 'alu (fma/mul/add/xor loop, 4096 iterations)',
    ptx: `${HEADER}
.visible .entry alu(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<6>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; cvt.rn.f32.u32 %f1, %r1; mov.f32 %f2, 0f3F800000; mov.u32 %r2, 0; mov.u32 %r3, %r1;
$L_loop:
  fma.rn.f32 %f2, %f2, %f1, 0f3F000000;
  mul.f32 %f3, %f2, 0f3E800000;
  add.f32 %f2, %f3, %f1;
  xor.b32 %r3, %r3, %r2;
  shl.b32 %r4, %r3, 1;
  add.s32 %r3, %r4, %r1;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 4096;
  @%p1 bra $L_loop;
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}`,
    launch: { grid: [4, 1, 1], block: [256, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 'f32', count: 1024, init: undefined, file: undefined }] },
  },
  {
    name: 'memory (grid-stride saxpy over 1M floats)',
    ptx: `${HEADER}
.visible .entry mem(.param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y]; ld.param.u32 %r5, [n];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mad.lo.s32 %r1, %r2, %r3, %r1;
  mov.u32 %r4, %nctaid.x; mul.lo.s32 %r4, %r4, %r3;
$L_loop:
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra $L_done;
  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4]; ld.global.f32 %f2, [%rd5];
  fma.rn.f32 %f3, %f1, 0f40200000, %f2;
  st.global.f32 [%rd5], %f3;
  add.s32 %r1, %r1, %r4;
  bra.uni $L_loop;
$L_done:
  ret;
}`,
    launch: { grid: [16, 1, 1], block: [256, 1, 1], sharedBytes: 0, args: [
      { kind: 'buffer', name: 'x', type: 'f32', count: 1 << 20, init: undefined, file: undefined },
      { kind: 'buffer', name: 'y', type: 'f32', count: 1 << 20, init: undefined, file: undefined },
      { kind: 'scalar', name: 'n', type: 'u32', value: 1 << 20 }] },
  },
  {
    name: 'shared + barriers (tree reduction, 256 threads x 64 rounds)',
    ptx: `${HEADER}
.visible .entry red(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[1024];
  mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, buf; add.s32 %r4, %r3, %r2; mov.u32 %r9, 0;
$L_round:
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  mov.u32 %r5, 128;
$L_step:
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra $L_skip;
  shl.b32 %r6, %r5, 2; add.s32 %r7, %r4, %r6;
  ld.shared.u32 %r8, [%r7]; ld.shared.u32 %r10, [%r4]; add.s32 %r10, %r10, %r8; st.shared.u32 [%r4], %r10;
$L_skip:
  bar.sync 0;
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra $L_step;
  add.s32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, 64;
  @%p2 bra $L_round;
  ret;
}`,
    launch: { grid: [8, 1, 1], block: [256, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 16, init: undefined, file: undefined }] },
  },
  {
    name: 'atomics (shared and global atom.add, 256 per thread)',
    ptx: `${HEADER}
.visible .entry atom(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 bins[256];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, 0; mov.u32 %r5, bins;
$L_loop:
  add.s32 %r3, %r1, %r2; and.b32 %r3, %r3, 63; shl.b32 %r3, %r3, 2; add.s32 %r4, %r5, %r3;
  atom.shared.add.u32 %r6, [%r4], 1;
  cvt.u64.u32 %rd2, %r3; add.s64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3], 1;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 256;
  @%p1 bra $L_loop;
  ret;
}`,
    launch: { grid: [8, 1, 1], block: [256, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 64, init: undefined, file: undefined }] },
  },
];

