/**
 * Child grids (dynamic parallelism, CUDA 12's CDP2 device runtime): a grid launched from device
 * code gets its parameters as they were at cudaLaunchDeviceV2, runs in its parent's memory after
 * the parent has finished, each child with its descendants before the next child, and tail
 * launches after the parent's other children. Refused launches give the documented error codes.
 */
import { runDescendants } from '../../src/exec/children.js';
import { defaultLaunch, type Launch, parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, type FaultReport, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { checkTree } from '../../src/races/run.js';
import { formatReport } from '../../src/races/format.js';

const HEAD = `.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2(.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(.param .b64 p0, .param .b64 p1);
`;

/**
 * PTX that launches `kernel<<<grid, block, 0, stream>>>(out, a, b)` (parameters .u64, .u32,
 * .u32 at offsets 0, 8, 12) with the launch status in `status` (NULL buffer: status 1 unset).
 */
function launch(kernel: string, grid: string, block: string, a: string, b: string, status: string, stream = 0): string {
  return `
  mov.u64 %rdf, ${kernel};
  { .param .b64 a0; st.param.b64 [a0], %rdf;
    .param .align 4 .b8 a1[12]; st.param.b32 [a1], ${grid}; st.param.b32 [a1+4], 1; st.param.b32 [a1+8], 1;
    .param .align 4 .b8 a2[12]; st.param.b32 [a2], ${block}; st.param.b32 [a2+4], 1; st.param.b32 [a2+8], 1;
    .param .b32 a3; st.param.b32 [a3], 0;
    .param .b64 r0; call.uni (r0), __cudaCDP2GetParameterBufferV2, (a0, a1, a2, a3); ld.param.b64 %rdb, [r0]; }
  mov.u32 ${status}, 111;
  setp.eq.u64 %pnull, %rdb, 0;
  @%pnull bra.uni SKIP_${status.slice(1)}_${kernel};
  st.u64 [%rdb], %rdout;
  st.u32 [%rdb+8], ${a};
  st.u32 [%rdb+12], ${b};
  { .param .b64 a0; st.param.b64 [a0], %rdb; .param .b64 a1; st.param.b64 [a1], ${stream};
    .param .b32 r0; call.uni (r0), __cudaCDP2LaunchDeviceV2, (a0, a1); ld.param.b32 ${status}, [r0]; }
SKIP_${status.slice(1)}_${kernel}:`;
}

const REGS = `
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .b64 %rdf, %rdb, %rdout;
  .reg .pred %p<4>, %pnull;
  ld.param.u64 %rdout, [out];`;

function run(src: string, block: number, outWords = 64): { m: Machine; words: number[]; stdout: string; grids: number; fault: FaultReport | undefined } {
  const loaded = loadPtx(src, 'children.ptx');
  if (!loaded.program) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  const program = loaded.program;
  const base = defaultLaunch(program, 'parent');
  const l: Launch = {
    ...base, grid: [1, 1, 1], block: [block, 1, 1],
    args: base.args.map((a) => (a.kind === 'buffer' ? { ...a, type: 'u32' as const, count: outWords, init: new Uint8Array(outWords * 4) } : a)),
  };
  const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  if (!r.ok) throw new Error(r.fault!.message);
  const tree = runDescendants(m, (c) => { c.run(); });
  const at = m.buffers[0]!.alloc.base;
  const words = Array.from(new Uint32Array(m.arena.bank.u8.slice(at, at + outWords * 4).buffer));
  return { m, words, stdout: m.stdout + tree.stdout, grids: tree.grids, fault: tree.fault };
}

test('a child grid gets the parameters written before its launch and runs after the parent, in its memory', () => {
  // parent: threads 0 and 1 each launch fill<<<2, 4>>>(out, base = 8 * tid, value = 10 + tid);
  // fill writes out[base + 4 * ctaid + tid] = 100 * value + 4 * ctaid + tid. The parent then reads
  // out[base] (still 0: children run after it) into out[20 + tid] and its launch status into out[16 + tid].
  const src = `${HEAD}
.visible .entry fill(.param .u64 out, .param .u32 base, .param .u32 value)
{
  .reg .b32 %r<10>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [base]; ld.param.u32 %r2, [value];
  mov.u32 %r3, %ctaid.x; mov.u32 %r4, %tid.x;
  shl.b32 %r5, %r3, 2; add.u32 %r5, %r5, %r4;
  mad.lo.u32 %r6, %r2, 100, %r5;
  add.u32 %r7, %r1, %r5;
  mul.wide.u32 %rd2, %r7, 4; add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 3;
  add.u32 %r3, %r1, 10;
${launch('fill', '2', '4', '%r2', '%r3', '%r4')}
  mul.wide.u32 %rd1, %r2, 4; add.u64 %rd2, %rdout, %rd1; ld.global.u32 %r5, [%rd2];
  add.u32 %r6, %r1, 16; mul.wide.u32 %rd3, %r6, 4; add.u64 %rd4, %rdout, %rd3; st.global.u32 [%rd4], %r4;
  add.u32 %r7, %r1, 20; mul.wide.u32 %rd5, %r7, 4; add.u64 %rd6, %rdout, %rd5; st.global.u32 [%rd6], %r5;
  ret;
}
`;
  const { words, grids } = run(src, 2, 24);
  const want = new Array<number>(24).fill(0);
  for (const t of [0, 1]) for (let i = 0; i < 8; i++) want[8 * t + i] = 100 * (10 + t) + i;
  want[16] = 0; want[17] = 0; // cudaSuccess
  want[20] = 0; want[21] = 0; // read before the children ran
  expect(grids).toBe(2);
  expect(words).toEqual(want);
});

test('each child runs with its descendants before the next; a tail launch runs after the other children', () => {
  // log(id): out[1 + atomicAdd(&out[0], 1)] = id. parent thread 0 launches A (which launches A2)
  // then T into cudaStreamTailLaunch (stream 3); after a barrier, thread 1 launches B.
  // Launch order A, T, B; run order A, A2, B, T.
  const logBody = `
  .reg .b32 %r<6>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [a];
  atom.global.add.u32 %r2, [%rd1], 1;
  add.u32 %r3, %r2, 1; mul.wide.u32 %rd2, %r3, 4; add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;`;
  const src = `${HEAD}
.visible .entry leaf(.param .u64 out, .param .u32 a, .param .u32 b)
{${logBody}
  ret;
}
.visible .entry mid(.param .u64 out, .param .u32 a, .param .u32 b)
{${logBody}
  .reg .b64 %rdf, %rdb, %rdout; .reg .pred %pnull; .reg .b32 %rs;
  mov.u64 %rdout, %rd1;
  add.u32 %r4, %r1, 1;
${launch('leaf', '1', '1', '%r4', '0', '%rs')}
  ret;
}
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra AFTER;
  mov.u32 %r10, 1;
${launch('mid', '1', '1', '%r10', '0', '%r2')}
  mov.u32 %r11, 9;
${launch('leaf', '1', '1', '%r11', '0', '%r3', 3)}
AFTER:
  bar.sync 0;
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra DONE;
  mov.u32 %r12, 3;
${launch('leaf', '1', '1', '%r12', '0', '%r4')}
DONE:
  ret;
}
`;
  const { words, grids } = run(src, 2, 8);
  expect(grids).toBe(4);
  // count 4, then A (1), A2 (2), B (3), T (9)
  expect(words.slice(0, 5)).toEqual([4, 1, 2, 3, 9]);
});

test('refused launches: a block over 1024 threads is cudaErrorInvalidConfiguration (9) and gives a NULL buffer; a non-kernel is 98', () => {
  const src = `${HEAD}
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDevice(.param .b64 p0, .param .b64 p1, .param .align 4 .b8 p2[12], .param .align 4 .b8 p3[12], .param .b32 p4, .param .b64 p5);
.visible .func helper() { ret; }
.visible .entry leaf(.param .u64 out, .param .u32 a, .param .u32 b) { ret; }
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, 0;
${launch('leaf', '1', '2048', '%r1', '%r1', '%r2')}
  mov.u64 %rd1, helper;
  { .param .b64 a0; st.param.b64 [a0], %rd1; .param .b64 a1; st.param.b64 [a1], %rdout;
    .param .align 4 .b8 a2[12]; st.param.b32 [a2], 1; st.param.b32 [a2+4], 1; st.param.b32 [a2+8], 1;
    .param .align 4 .b8 a3[12]; st.param.b32 [a3], 1; st.param.b32 [a3+4], 1; st.param.b32 [a3+8], 1;
    .param .b32 a4; st.param.b32 [a4], 0; .param .b64 a5; st.param.b64 [a5], 0;
    .param .b32 r0; call.uni (r0), __cudaCDP2LaunchDevice, (a0, a1, a2, a3, a4, a5); ld.param.b32 %r3, [r0]; }
  st.global.u32 [%rdout], %r2;
  st.global.u32 [%rdout+4], %r3;
  ret;
}
`;
  const { words, grids } = run(src, 1, 2);
  // the V2 buffer was NULL, so the launch was skipped and the status stayed 111
  expect(words).toEqual([111, 98]);
  expect(grids).toBe(0);
});

test('grids nest 24 deep: launching from depth 23 fails with cudaErrorLaunchMaxDepthExceeded (65) as the last error', () => {
  // rec(out, depth): out[depth] = status of launching rec(out, depth + 1) (111: not launched,
  // the parameter buffer was NULL), out[32 + depth] = cudaGetLastError() after it
  const src = `${HEAD}
.extern .func (.param .b32 func_retval0) __cudaCDP2GetLastError();
.visible .entry rec(.param .u64 out, .param .u32 a, .param .u32 b)
{${REGS}
  ld.param.u32 %r1, [a];
  add.u32 %r2, %r1, 1;
${launch('rec', '1', '1', '%r2', '0', '%r3')}
  { .param .b32 r0; call.uni (r0), __cudaCDP2GetLastError, (); ld.param.b32 %r4, [r0]; }
  mul.wide.u32 %rd1, %r1, 4; add.u64 %rd2, %rdout, %rd1;
  st.global.u32 [%rd2], %r3;
  st.global.u32 [%rd2+128], %r4;
  ret;
}
`;
  const loaded = loadPtx(src, 'rec.ptx');
  const program = loaded.program!;
  const base = defaultLaunch(program, 'rec');
  const l: Launch = {
    ...base, grid: [1, 1, 1], block: [1, 1, 1],
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 64, init: new Uint8Array(256).fill(0xff), file: undefined }, { kind: 'scalar', name: 'a', type: 'u32', value: 0 }, { kind: 'scalar', name: 'b', type: 'u32', value: 0 }],
  };
  const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
  expect(m.run().ok).toBe(true);
  const tree = runDescendants(m, (c) => { c.run(); });
  expect(tree.fault).toBeUndefined();
  expect(tree.grids).toBe(23);
  const at = m.buffers[0]!.alloc.base;
  const words = Array.from(new Uint32Array(m.arena.bank.u8.slice(at, at + 256).buffer));
  // depths 0..22 launched (cudaSuccess, no error), depth 23 was refused, nothing deeper ran
  expect(words.slice(0, 23)).toEqual(new Array<number>(23).fill(0));
  expect(words.slice(32, 55)).toEqual(new Array<number>(23).fill(0));
  expect([words[23], words[32 + 23]]).toEqual([111, 65]);
  expect([words[24], words[32 + 24]]).toEqual([0xffffffff, 0xffffffff]);
});

test('a fault in a child grid names the child launch', () => {
  const src = `${HEAD}
.visible .entry bad(.param .u64 out, .param .u32 a, .param .u32 b)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  mov.u64 %rd1, 0;
  ld.global.u32 %r1, [%rd1];
  ret;
}
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, 5;
${launch('bad', '1', '1', '%r1', '%r1', '%r2')}
  ret;
}
`;
  const { fault, grids } = run(src, 1, 2);
  expect(grids).toBe(1);
  expect(fault?.kind).toBe('invalid'); // a null pointer is in no memory window
  expect(fault?.function).toBe('bad');
  expect(fault?.hints?.[0]).toBe('in the child grid bad<<<(1,1,1),(1,1,1)>>> launched by block (0,0,0) thread (0,0,0)');
});

describe('CDP1 cudaDeviceSynchronize from device code (sm_80 with CUDA_FORCE_CDP1_IF_SUPPORTED)', () => {
  // parent: thread 0 launches add1<<<1, 4>>>(v) (v[i] += 1), waits with cudaDeviceSynchronize, then
  // stores v[0] + v[1] + v[2] + v[3] in v[4] and the wait's status in v[5]; v starts at 10, 20, 30, 40
  const src = `.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) cudaGetParameterBufferV2(.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) cudaLaunchDeviceV2(.param .b64 p0, .param .b64 p1);
.extern .func (.param .b32 func_retval0) cudaDeviceSynchronize();
.visible .entry add1(.param .u64 out, .param .u32 a, .param .u32 b)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3]; add.u32 %r2, %r2, 1; st.global.u32 [%rd3], %r2;
  ret;
}
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
${launch('add1', '1', '4', '0', '0', '%r2').replace(/__cudaCDP2/g, 'cuda')}
  add.u32 %r9, %r1, 1; add.u32 %r9, %r9, 1; add.u32 %r9, %r9, 1; add.u32 %r9, %r9, 1;
  add.u32 %r9, %r9, 1; add.u32 %r9, %r9, 1; add.u32 %r9, %r9, 1; add.u32 %r9, %r9, 1;
  { .param .b32 r0; call.uni (r0), cudaDeviceSynchronize, (); ld.param.b32 %r3, [r0]; }
  ld.global.u32 %r4, [%rdout]; ld.global.u32 %r5, [%rdout+4]; ld.global.u32 %r6, [%rdout+8]; ld.global.u32 %r7, [%rdout+12];
  add.u32 %r4, %r4, %r5; add.u32 %r4, %r4, %r6; add.u32 %r4, %r4, %r7;
  st.global.u32 [%rdout+16], %r4;
  st.global.u32 [%rdout+20], %r3;
DONE:
  ret;
}
`;
  const program = loadPtx(src, 'cdp1.ptx').program!;
  const base = defaultLaunch(program, 'parent');
  const init = new Uint8Array(Uint32Array.from([10, 20, 30, 40, 0, 7]).buffer);
  const l: Launch = { ...base, block: [2, 1, 1], args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 6, init, file: undefined }] };
  const words = (m: Machine): number[] => Array.from(new Uint32Array(m.arena.bank.u8.slice(m.buffers[0]!.alloc.base, m.buffers[0]!.alloc.base + 24).buffer));

  test('the waiting thread sees what the child grid wrote', () => {
    const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
    expect(m.run().ok).toBe(true);
    // 11 + 21 + 31 + 41 = 104, status cudaSuccess; nothing is left to run after the parent
    expect(words(m)).toEqual([11, 21, 31, 41, 104, 0]);
    expect(m.children.size).toBe(0);
  });

  test('a recording travels through the wait exactly: every position restores the state forward execution reaches', () => {
    const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
    m.prime();
    const t = Trace.record(m, { interval: 4 });
    const ref = new Machine(program, l, DEFAULT_RUN_OPTIONS);
    ref.prime();
    const want: string[] = [];
    for (let p = 0; p <= t.total; p++) { ref.advance(p); want.push(stateHash(ref)); }
    // backward one position at a time: each restores a checkpoint, some of them taken between the
    // launch and the wait (eight instructions apart), and re-executes through the wait
    for (let p = t.total; p >= 0; p--) {
      t.goto(p);
      expect({ p, h: stateHash(m) }).toEqual({ p, h: want[p] });
    }
    t.goto(t.total);
    expect(words(m)).toEqual([11, 21, 31, 41, 104, 0]);
  });
});

test('the race checker runs the child grids too, each finding labelled with its grid', () => {
  // parent launches racy<<<1, 64>>>: thread t writes s = t, then (no barrier) warp 1 reads s
  const src = `${HEAD}
.visible .entry racy(.param .u64 out, .param .u32 a, .param .u32 b)
{
  .shared .align 4 .b32 s;
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra READ;
  st.shared.u32 [s], %r1;
  ret;
READ:
  ld.shared.u32 %r2, [s];
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry parent(.param .u64 out)
{${REGS}
  mov.u32 %r1, 0;
${launch('racy', '1', '64', '%r1', '%r1', '%r2')}
  ret;
}
`;
  const program = loadPtx(src, 'racy.ptx').program!;
  const base = defaultLaunch(program, 'parent');
  const { report } = checkTree(program, { ...base, block: [1, 1, 1] }, DEFAULT_RUN_OPTIONS);
  expect(report.races.length).toBeGreaterThan(0);
  expect(report.races.every((r) => r.grid === 'racy<<<(1,1,1),(64,1,1)>>>')).toBe(true);
  expect(report.races.some((r) => r.space === 'shared' && (r.kind === 'RAW' || r.kind === 'WAR'))).toBe(true);
  expect(formatReport(report)).toContain('(in the child grid racy<<<(1,1,1),(64,1,1)>>>)');
});

test('a launch file\'s "depth" is the grid\'s nesting depth: launching from depth 23 is refused', () => {
  // rec launches itself once; at "depth": 23 its launch fails with 65 (cudaErrorLaunchMaxDepthExceeded)
  const src = `${HEAD}
.extern .func (.param .b32 func_retval0) __cudaCDP2GetLastError();
.visible .entry rec(.param .u64 out, .param .u32 a, .param .u32 b)
{${REGS}
${launch('rec', '1', '1', '0', '0', '%r3')}
  { .param .b32 r0; call.uni (r0), __cudaCDP2GetLastError, (); ld.param.b32 %r4, [r0]; }
  st.global.u32 [%rdout], %r4;
  ret;
}
`;
  const program = loadPtx(src, 'rec.ptx').program!;
  const json = (depth: number): unknown => ({ kernel: 'rec', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: 1 }, { name: 'a', type: 'u32', value: 0 }, { name: 'b', type: 'u32', value: 0 }], depth });
  const status = (depth: number): number => {
    const m = new Machine(program, parseLaunch(json(depth), program, '.', 'L'), DEFAULT_RUN_OPTIONS);
    expect(m.run().ok).toBe(true);
    return new Uint32Array(m.arena.bank.u8.slice(m.buffers[0]!.alloc.base, m.buffers[0]!.alloc.base + 4).buffer)[0]!;
  };
  expect(status(22)).toBe(0);
  expect(status(23)).toBe(65);
  expect(() => parseLaunch(json(25), program, '.', 'L')).toThrow(/"depth" .* from 0 to 24/);
});
