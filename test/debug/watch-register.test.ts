/**
 * watch on a local that lives in registers (-G keeps `v` in %r2, %r4, %r6... as the loop goes):
 * the value is re-evaluated in its frame at each of the thread's steps, both directions.
 * samples/sync_warp_reduce, block 0, thread 0: v = in[0] + in[32]; then v += s[16], where every
 * lane t < 32 stored its own v_t = in[t] + in[t+32] into s[t] just before.
 */
import { engineOf } from '../../src/engine/api.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const input = new Int32Array(new Uint8Array(readFileSync(join(ROOT, 'samples', 'sync_warp_reduce', 'in', 'in.bin'))).buffer);
const run = (s: ReturnType<typeof openSession>, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('watch v stops after each change of a register-resident local, and reverse-continue on the write', () => {
  const dir = join(ROOT, 'samples', 'sync_warp_reduce');
  const s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), interval: 64 });
  run(s, 'break 10 if threadIdx.x == 0'); // v is set on line 9; the loop starts on line 10
  run(s, 'continue');
  run(s, 'delete');
  const v0 = input[0]! + input[32]!;
  expect(run(s, 'print v')).toBe(`$1 = ${v0}`);
  expect(run(s, 'watch v')).toMatch(/^Watchpoint 2: v \(in registers of block \(0,0,0\) thread \(0,0,0\)/);
  const first = run(s, 'continue');
  const v1 = v0 + input[16]! + input[48]!;
  expect(first).toContain(`Old value = ${v0}\nNew value = ${v1}`);
  expect(s.where().line).toBe(14); // stopped after line 13's write, at the next instruction
  const atFirst = s.position();
  run(s, 'continue');
  run(s, 'reverse-continue'); // back onto the step that made the second change
  expect(s.where().line).toBe(13);
  expect(s.position()).toBeGreaterThan(atFirst);
  const back = run(s, 'reverse-continue');
  expect(back).toContain(`Old value = ${v0}\nNew value = ${v1}`);
  expect(s.position()).toBe(atFirst - 1);
  expect(run(s, 'info breakpoints')).toMatch(/watchpoint\s+y\s+v\s+\(in registers of block \(0,0,0\) thread \(0,0,0\), hit 4 times\)/);
});
