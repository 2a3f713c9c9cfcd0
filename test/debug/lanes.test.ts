/** The warp view of a value: `print/lanes` and `print/block`. */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { parseLaunch } from '../../src/exec/launch.js';
import { loadPtx } from '../../src/ptx/index.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('print/lanes shows a local for all 32 lanes of the warp (origin_flow: b = 2*(10*t+1))', () => {
  const dir = join(ROOT, 'samples', 'origin_flow');
  const s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
  run(s, 'break 16 if threadIdx.x == 3');
  run(s, 'continue');
  const lines = run(s, 'print/lanes b').split('\n');
  expect(lines[0]).toBe('b for warp 0 of block (0,0,0):');
  expect(lines.length).toBe(33);
  for (let l = 0; l < 32; l++) expect(lines[1 + l]).toMatch(new RegExp(`^  lane ${String(l).padStart(2)} thread \\(${l},0,0\\)\\s+${2 * (10 * l + 1)}$`));
});

// lanes 0-15 take the branch and stop at the add; lanes 16-31 wait at the reconvergence point
const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry div(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L_join;
  add.u32 %r2, %r2, 100;
  add.u32 %r3, %r2, 1;
$L_join:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}`;

test('print/lanes marks lanes that diverged away, and print/block folds equal runs', () => {
  const program = loadPtx(PTX, 'div.ptx').program!;
  const launch = parseLaunch({ kernel: 'div', grid: [1, 1, 1], block: [64, 1, 1], args: [{ name: 'out', type: 'u32', count: 64 }] }, program, '.', 'L');
  const s = openSession({ ptxPath: 'div.ptx', ptxText: PTX, launchObject: launch });
  run(s, 'break *5'); // add.u32 %r3: only lanes 0-15 of each warp get here
  run(s, 'continue');
  expect(s.where().thread).toEqual([0, 0, 0]);
  const lanes = run(s, 'print/lanes $r2').split('\n');
  // lanes 0-15 already added 100 to 3*t; lanes 16-31 hold 3*t and are not active here
  for (let l = 0; l < 16; l++) expect(lanes[1 + l]).toMatch(new RegExp(`thread \\(${l},0,0\\)\\s+${3 * l + 100}$`));
  for (let l = 16; l < 32; l++) expect(lanes[1 + l]).toMatch(new RegExp(`thread \\(${l},0,0\\)\\s+${3 * l}   \\(inactive\\)$`));
  const block = run(s, 'print/block $p1').split('\n');
  // the predicate: false for t < 16 and true for 16..31 in warp 0; warp 1 has not run yet (0 = false)
  expect(block.slice(1).map((l) => l.trim().replace(/\s+/g, ' '))).toEqual([
    'threads (0,0,0)..(15,0,0) false',
    'threads (16,0,0)..(31,0,0) true (inactive)',
    'threads (32,0,0)..(63,0,0) false',
  ]);
});
