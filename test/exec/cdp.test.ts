/**
 * Device runtime (dynamic parallelism) calls: memory and error calls run with the CUDA
 * semantics of cuda_device_runtime_api.h; child-grid launches are a located 'unsupported' fault
 * naming the call, never an unexplained bad-call.
 */
import { defaultLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

const HEAD = `.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) cudaMalloc(.param .b64 p0, .param .b64 p1);
.extern .func (.param .b32 func_retval0) cudaFree(.param .b64 p0);
.extern .func (.param .b64 func_retval0) cudaGetParameterBufferV2(.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
`;

function machine(src: string, block = 1) {
  const program = loadPtx(src, 'cdp.ptx').program!;
  const launch = { ...defaultLaunch(program), block: [block, 1, 1] as [number, number, number] };
  return new Machine(program, launch, DEFAULT_RUN_OPTIONS);
}

test('cudaMalloc gives usable memory; cudaFree succeeds once, then reports cudaErrorInvalidValue', () => {
  const m = machine(`${HEAD}.visible .entry k(.param .u64 out)
{
  .local .align 8 .b8 slot[8];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, slot;
  cvta.local.u64 %rd3, %rd2;
  { .param .b64 a0; st.param.b64 [a0], %rd3; .param .b64 a1; st.param.b64 [a1], 16;
    .param .b32 r0; call.uni (r0), cudaMalloc, (a0, a1); ld.param.b32 %r1, [r0]; }
  ld.local.u64 %rd4, [slot];
  mov.u32 %r2, 77;
  st.u32 [%rd4], %r2;
  ld.u32 %r3, [%rd4];
  { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b32 r0; call.uni (r0), cudaFree, (a0); ld.param.b32 %r4, [r0]; }
  { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b32 r0; call.uni (r0), cudaFree, (a0); ld.param.b32 %r5, [r0]; }
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r3;
  st.global.u32 [%rd1+8], %r4;
  st.global.u32 [%rd1+12], %r5;
  ret;
}
`);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  // cudaSuccess (0), the stored 77 read back, cudaSuccess, then cudaErrorInvalidValue (1) for the double free
  expect(Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 16).buffer))).toEqual([0, 77, 0, 1]);
});

test('the CUDA 12 (CDP2) spellings __cudaCDP2Malloc/Free run; __cudaCDP2StreamCreateWithFlags gives a handle', () => {
  const head = `.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) __cudaCDP2Malloc(.param .b64 p0, .param .b64 p1);
.extern .func (.param .b32 func_retval0) __cudaCDP2Free(.param .b64 p0);
.extern .func (.param .b32 func_retval0) __cudaCDP2StreamCreateWithFlags(.param .b64 p0, .param .b32 p1);
`;
  const m = machine(`${head}.visible .entry k(.param .u64 out)
{
  .local .align 8 .b8 slot[8];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, slot;
  cvta.local.u64 %rd3, %rd2;
  { .param .b64 a0; st.param.b64 [a0], %rd3; .param .b64 a1; st.param.b64 [a1], 16;
    .param .b32 r0; call.uni (r0), __cudaCDP2Malloc, (a0, a1); ld.param.b32 %r1, [r0]; }
  ld.local.u64 %rd4, [slot];
  mov.u32 %r2, 55;
  st.u32 [%rd4], %r2;
  ld.u32 %r3, [%rd4];
  { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b32 r0; call.uni (r0), __cudaCDP2Free, (a0); ld.param.b32 %r4, [r0]; }
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r3;
  st.global.u32 [%rd1+8], %r4;
  { .param .b64 a0; st.param.b64 [a0], %rd3; .param .b32 a1; st.param.b32 [a1], 1;
    .param .b32 r0; call.uni (r0), __cudaCDP2StreamCreateWithFlags, (a0, a1); ld.param.b32 %r5, [r0]; }
  ld.local.u64 %rd5, [slot];
  setp.ne.u64 %p1, %rd5, 0;
  selp.u32 %r6, 1, 0, %p1;
  st.global.u32 [%rd1+12], %r5;
  st.global.u32 [%rd1+16], %r6;
  ret;
}
`.replace('.reg .b64 %rd<8>;', '.reg .b64 %rd<8>;\n  .reg .pred %p<2>;'));
  const r = m.run();
  expect(r.ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  // malloc status, the value read back, free status, stream-create status, a non-null handle
  expect(Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 20).buffer))).toEqual([0, 55, 0, 0, 1]);
});

test('cudaGraphSetConditional stores the value at the handle, the device word the ptxdbg runtime made for it', () => {
  // the ptxdbg runtime's cudaGraphConditionalHandleCreate returns a cudaMalloc'd word's address
  // (src/cudart/conditional.c); the conditional node reads the value there after the kernel
  const m = machine(`${HEAD}.extern .func cudaGraphSetConditional(.param .b64 p0, .param .b32 p1);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  add.u64 %rd2, %rd1, 4;
  { .param .b64 a0; st.param.b64 [a0], %rd2; .param .b32 a1; st.param.b32 [a1], 7; call.uni cudaGraphSetConditional, (a0, a1); }
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 9;
  st.global.u32 [%rd1], %r1;
  ret;
}
`);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  expect(Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 12).buffer))).toEqual([9, 7, 0]);
});
