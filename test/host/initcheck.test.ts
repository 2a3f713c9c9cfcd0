/**
 * initcheck (InitCheck as a probe on one launch) on hand-written PTX shaped like a -G build's
 * calls: arguments written with st.param into the caller's frame and read by the call, also when
 * the callee's deep stack re-strides every lane's local memory first. Nothing here reads memory
 * that was not written, so any finding is a false one; a read of a never-written local is found.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { InitCheck } from '../../src/host/initcheck.js';

const HEADER = '.version 8.0\n.target sm_80\n.address_size 64\n';

/** A kernel passing (pointer, 1) to `add1` through .param memory, as nvcc -G calls atomicAdd's wrapper. */
const PTX = (calleeLocal: string, kernelRead = ''): string => `${HEADER}
.func (.param .b32 ret) add1(.param .b64 p, .param .b32 v)
{
  .reg .b32 %r<4>; .reg .b64 %rd<3>;
  ${calleeLocal}
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [v];
  atom.global.add.u32 %r2, [%rd1], %r1;
  st.param.b32 [ret], %r2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<3>;
  .local .align 4 .b8 mine[16];
  ${kernelRead}
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], 1;
  .param .b32 retval0;
  call.uni (retval0), add1, (param0, param1);
  ld.param.b32 %r1, [retval0+0];
  }
  ret;
}`;

function findings(ptx: string): string[] {
  const loaded = loadPtx(ptx, 't.ptx');
  if (!loaded.program) throw new Error(loaded.diagnostics.map((d) => d.message).join('; '));
  const m = new Machine(loaded.program, {
    kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 1, init: undefined, file: undefined }],
  }, DEFAULT_RUN_OPTIONS);
  const check = new InitCheck();
  check.attach(m);
  // the counter as cudaMemset would leave it: written
  check.initialized(m.buffers[0]!.alloc.base, 4);
  const r = m.run();
  check.detach();
  expect(r.fault).toBeUndefined();
  // 64 threads each added 1
  expect(m.arena.bank.u32[m.buffers[0]!.alloc.base / 4]).toBe(64);
  return check.findings.map((f) => `${f.space} ${f.size} in ${f.function}`);
}

test('call arguments written with st.param and read by the call are initialized', () => {
  expect(findings(PTX(''))).toEqual([]);
});

test('... also when the callee\'s 8 KiB stack re-strides every lane\'s local memory before the copy', () => {
  expect(findings(PTX('.local .align 4 .b8 deep[8192];'))).toEqual([]);
});

test('a read of a local never written is still found, one record per thread that reads it (as compute-sanitizer reports)', () => {
  // every one of the 64 threads reads mine[0..3] before anything wrote it
  expect(findings(PTX('.local .align 4 .b8 deep[8192];', 'ld.local.u32 %r2, [mine];'))).toEqual(Array.from({ length: 64 }, () => 'local 4 in k'));
});
