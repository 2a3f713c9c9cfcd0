/**
 * Lean blocks (RunOptions.deadStores, src/exec/block/deadstores.ts, liveness.ts): a block may
 * leave a register unwritten when the register is dead after the block and nothing in the block
 * reads it back from the register file. That changes only registers no later instruction reads:
 * memory, output, faults and step counts are those of the per-instruction path (the reference),
 * and a recording turns lean blocks off, so what a debugger shows is unchanged.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../../src/exec/machine.js';
import { Liveness } from '../../src/exec/block/liveness.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

/** What a run computes: every global byte, stdout, the fault, the counts. */
function outcome(m: Machine): { memory: string; stdout: string; fault: string | undefined; steps: number; thr: number } {
  const r = m.run();
  const memory = createHash('sha256').update(m.arena.bank.u8).digest('hex');
  const f = r.fault;
  return { memory, stdout: r.stdout, fault: f && `${f.kind} ${f.function} pc ${f.pc} lane ${f.lane} ${f.message}`, steps: r.stats.warpSteps, thr: r.stats.threadInstructions };
}

const SAMPLES = readdirSync(join(ROOT, 'samples')).filter((d) => existsSync(join(ROOT, 'samples', d, 'launch.json')));
const SCHEDULES: Pick<RunOptions, 'schedule' | 'seed'>[] = [{ schedule: 'rr', seed: 1 }, { schedule: 'random', seed: 7 }];

describe.each(['O3', 'G'])('every sample (%s): lean blocks compute what one instruction at a time computes', (build) => {
  test.each(SAMPLES.filter((d) => existsSync(join(ROOT, 'samples', d, `kernel.${build}.ptx`))))('%s', (name) => {
    const sdir = join(ROOT, 'samples', name);
    const ptxPath = join(sdir, `kernel.${build}.ptx`);
    const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
    const launch = readLaunchFile(join(sdir, 'launch.json'), program);
    for (const sched of SCHEDULES) {
      const ref = outcome(new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, ...sched, blocks: false }));
      const lean = outcome(new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, ...sched, blocks: true, deadStores: true }));
      expect(lean).toEqual(ref);
    }
  });
});

/**
 * Liveness by hand (a register is live where a later instruction may read it before it is written
 * anew): %r2 is read only by the mul right after it; %r4 is never read; %r3 and %rd3 are read by
 * the store; the loop's counter %r5 is read across the back edge; the guarded add to %r6 does not
 * kill it (when the guard fails the old value flows on), so %r6 is live from its first write.
 */
const PTX = `
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 1;
  mul.lo.s32 %r3, %r2, %r2;
  add.s32 %r4, %r1, %r1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
$loop:
  setp.eq.u32 %p2, %r1, 3;
  @%p2 add.s32 %r6, %r6, 10;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 4;
  @%p1 bra $loop;
  st.global.u32 [%rd4+128], %r6;
  ret;
}`;

const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-deadstores-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The kernel with one u32 buffer of 64 words for `out`, through the launch-file reader (as `ptxdbg run` takes it). */
function load(deadStores: boolean): { m: Machine; slot: (name: string) => number } {
  const program = loadPtx(PTX, 'k.ptx').program!;
  const lp = join(dir, 'launch.json');
  writeFileSync(lp, JSON.stringify({ kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], args: [{ name: 'out', type: 'u32', count: 64 }] }));
  const fn = program.functions.get('k')!;
  const slot = (name: string): number => fn.regs.find((r) => r.name === name)!.slot;
  return { m: new Machine(program, readLaunchFile(lp, program), { ...DEFAULT_RUN_OPTIONS, deadStores }), slot };
}

describe('liveness', () => {
  test('registers live at each instruction, by hand', () => {
    const { m, slot } = load(true);
    const fn = m.fn('k')!;
    const lv = new Liveness(fn, fn.template.byteLength >>> 8);
    const live = (pc: number, name: string): boolean => ((lv.liveAt(pc)[slot(name) >>> 5]! >>> (slot(name) & 31)) & 1) === 1;
    // before `mul.lo %r3, %r2, %r2` (pc 4): %r2 live; after it (pc 5) dead
    expect([live(4, '%r2'), live(5, '%r2')]).toEqual([true, false]);
    // %r4 is never read: dead right after its write (pc 6)
    expect(live(6, '%r4')).toBe(false);
    // %r3 and %rd4 live up to the store (pc 8), %r3 dead after it
    expect([live(8, '%r3'), live(8, '%rd4'), live(9, '%r3')]).toEqual([true, true, false]);
    // %rd4 is read again after the loop: live through it
    expect(live(12, '%rd4')).toBe(true);
    // the counter, at the loop's head (pc 11) and before its increment (pc 13)
    expect([live(11, '%r5'), live(13, '%r5')]).toEqual([true, true]);
    // the guarded add does not kill %r6: live before it (pc 12) and at the loop head
    expect([live(12, '%r6'), live(11, '%r6'), live(10, '%r6')]).toEqual([true, true, false]);
    // %r1 is read in the loop: live there; after the ret nothing is
    expect(live(11, '%r1')).toBe(true);
  });

  test('a lean block leaves unwritten the registers dead after it that only its own lane loop read', () => {
    // the first 11 instructions (up to the loop's label) are one block: one warp-step each
    const regs = (deadStores: boolean, name: string): number[] => {
      const { m, slot } = load(deadStores);
      m.advance(11);
      expect(m.warpSteps).toBe(11);
      const u = m.resident[0]!.warps[0]!.frame.u32;
      return Array.from({ length: 32 }, (_, l) => u[slot(name) * 64 + 2 * l]!);
    };
    const lanes = (f: (l: number) => number): number[] => Array.from({ length: 32 }, (_, l) => f(l));
    // %r2 = tid + 1 is read only by the next instruction, %r4 = 2 tid never: written by the plain
    // block, left as the frame began (0) by the lean one
    expect(regs(false, '%r2')).toEqual(lanes((l) => l + 1));
    expect(regs(true, '%r2')).toEqual(lanes(() => 0));
    expect(regs(false, '%r4')).toEqual(lanes((l) => 2 * l));
    expect(regs(true, '%r4')).toEqual(lanes(() => 0));
    // %r3 = (tid + 1)^2 is read by the store (its check and closure read the register file); %r1 is live after the block
    expect(regs(true, '%r3')).toEqual(lanes((l) => (l + 1) * (l + 1)));
    expect(regs(true, '%r1')).toEqual(lanes((l) => l));
  });

  test('the kernel\'s results with lean blocks', () => {
    const { m } = load(true);
    expect(m.run().fault).toBeUndefined();
    // (tid + 1)^2 in words 0..31; in words 32..63, 40 for lane 3 (its guarded add of 10 in each of the loop's 4 iterations), 0 for the others
    const out = m.buffers.find((b) => b.name === 'out')!;
    const words = new Uint32Array(m.arena.bank.u8.buffer.slice(m.arena.bank.u8.byteOffset + out.alloc.base, m.arena.bank.u8.byteOffset + out.alloc.base + 256));
    expect([...words.subarray(0, 32)]).toEqual(Array.from({ length: 32 }, (_, l) => (l + 1) * (l + 1)));
    expect([...words.subarray(32)]).toEqual(Array.from({ length: 32 }, (_, l) => (l === 3 ? 40 : 0)));
  });
});

test('a recording turns lean blocks off: the same trace state as without deadStores', () => {
  const sdir = join(ROOT, 'samples', 'saxpy');
  const program = loadPtx(readFileSync(join(sdir, 'kernel.O3.ptx'), 'utf8'), 'saxpy.ptx').program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);
  const hashes = [false, true].map((deadStores) => {
    const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, deadStores });
    const t = Trace.record(m, { interval: 256 });
    t.goto(Math.floor(t.total / 2) + 1);
    return stateHash(m);
  });
  expect(hashes[1]).toBe(hashes[0]);
});
