/**
 * Compiled functions are shared by the Machines of one program whose layouts agree (Machine.fn),
 * and only by those: a variable at another address, shared memory laid out for another kernel,
 * gets code of its own.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Launch } from '../../src/exec/launch.js';
import { GlobalArena, type ResidentMemory } from '../../src/exec/memory.js';
import { loadPtx } from '../../src/ptx/index.js';

const PTX = `
.version 7.0
.target sm_80
.address_size 64
.global .u32 pad[64];
.global .u32 g = 5;
.shared .align 4 .u32 sa[8];
.shared .align 4 .u32 sb[8];

.func (.reg .u32 r) viaShared(.reg .u32 v)
{
  st.shared.u32 [sb], v;
  ld.shared.u32 r, [sb];
  ret;
}

.visible .entry both(.param .u64 out)
{
  .reg .u64 %rd<3>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.shared.u32 [sa], 1;
  ld.global.u32 %r1, [g];
  call (%r2), viaShared, (%r1);
  st.global.u32 [%rd1], %r2;
  ret;
}

.visible .entry onlyB(.param .u64 out)
{
  .reg .u64 %rd<3>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.global.u32 %r1, [g];
  add.u32 %r1, %r1, 1;
  call (%r2), viaShared, (%r1);
  st.global.u32 [%rd1], %r2;
  ret;
}
`;

const program = loadPtx(PTX, 'cache.ptx').program!;

function launch(kernel: string, count: number, resident?: ResidentMemory): Launch {
  return {
    kernel, grid: [2, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count, init: undefined, file: undefined }],
    ...(resident ? { resident } : {}),
  };
}

function run(l: Launch): { m: Machine; out: number } {
  const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  return { m, out: m.arena.bank.u32[m.buffers[0]!.alloc.base >> 2]! };
}

function residentMemory(): ResidentMemory {
  return { arena: new GlobalArena(1 << 20), globals: new Map(), constBank: undefined };
}

test('machines of one program and layout share compiled code', () => {
  const a = run(launch('both', 4));
  const b = run(launch('both', 1000));
  expect([a.out, b.out]).toEqual([5, 5]);
  expect(b.m.fn('both')).toBe(a.m.fn('both'));
  expect(b.m.fn('viaShared')).toBe(a.m.fn('viaShared'));
  // a program's launches in resident memory: the variables keep their place, the code is shared
  const res = residentMemory();
  const c = run(launch('both', 4, res));
  const d = run(launch('both', 8, res));
  expect([c.out, d.out]).toEqual([5, 5]);
  expect(d.m.fn('both')).toBe(c.m.fn('both'));
});

test('another layout gets its own code', () => {
  // shared memory laid out per kernel: sb follows sa in `both`, starts at 0 in `onlyB`
  const a = run(launch('both', 4));
  const b = run(launch('onlyB', 4));
  expect([a.out, b.out]).toEqual([5, 6]);
  expect(b.m.fn('viaShared')).not.toBe(a.m.fn('viaShared'));
  // .global g at another address in another resident memory
  const other = residentMemory();
  other.arena.allocateBlock(4096, 'program data', 'buffer', 256, 1 << 20);
  const c = run(launch('both', 4, residentMemory()));
  const d = run(launch('both', 4, other));
  expect(d.m.addressOf(program.globals.find((g) => g.name === 'g')!)).not.toEqual(c.m.addressOf(program.globals.find((g) => g.name === 'g')!));
  expect([c.out, d.out]).toEqual([5, 5]);
  expect(d.m.fn('both')).not.toBe(c.m.fn('both'));
});
