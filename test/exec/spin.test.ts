/** Step-limit hints: the loop the live warps went round, which warps, and the address they polled. */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { runObservingSpins } from '../../src/exec/spin.js';
import { Trace } from '../../src/trace/trace.js';
import { loadPtx } from '../../src/ptx/index.js';

// instructions: 0 ld.param, 1 add (flag+8 = flag[2]), 2 ld.volatile, 3 setp, 4 bra, 5 ret.
// Nobody ever sets flag[2], so every warp polls it until the step limit.
const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  add.s64 %rd2, %rd1, 8;
$L_wait:
  ld.volatile.global.u32 %r1, [%rd2];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  ret;
}`;
const program = loadPtx(PTX, 'spin.ptx').program!;
const launch = () => parseLaunch({ kernel: 'spin', grid: [2, 1, 1], block: [64, 1, 1], args: [{ name: 'flag', type: 'u32', count: 4 }] }, program, '.', 'L');

test('a run stopped by the step limit names the loop, the warps and the polled element', () => {
  const m = new Machine(program, launch(), { ...DEFAULT_RUN_OPTIONS, maxSteps: 20_000 });
  runObservingSpins(m);
  expect(m.fault?.kind).toBe('step-limit');
  const hints = m.fault!.hints!.join('\n');
  expect(hints).toContain('spinning at (PTX instructions 2-4 of spin)');
  // 2 blocks x 2 warps, all four spin
  expect(hints).toContain('block (0,0,0) warps 0, 1; block (1,0,0) warps 0, 1');
  expect(hints).toMatch(/most read: global flag\[2\] \(0x[0-9a-f]+\)/);
});

test('a recording stopped by the step limit carries the same hints', () => {
  const m = new Machine(program, launch(), { ...DEFAULT_RUN_OPTIONS, maxSteps: 20_000 });
  const t = Trace.record(m);
  expect(t.fault?.kind).toBe('step-limit');
  expect(t.fault!.hints!.join('\n')).toMatch(/spinning at \(PTX instructions 2-4 of spin\): block \(0,0,0\) warps 0, 1; block \(1,0,0\) warps 0, 1; most read: global flag\[2\]/);
});

test('a run that finishes has no hints and the same result as a plain run', () => {
  const l = launch();
  const a = l.args[0]!;
  if (a.kind !== 'buffer') throw new Error('flag is a buffer');
  a.init = new Uint8Array(16); a.init[8] = 1; // flag[2] = 1: every thread leaves at once
  const m = new Machine(program, l, { ...DEFAULT_RUN_OPTIONS, maxSteps: 20_000 });
  runObservingSpins(m);
  expect(m.fault).toBeUndefined();
  // each warp: ld.param, add, ld, setp, bra, ret = 6 warp-steps, 4 warps
  expect(m.warpSteps).toBe(24);
});
