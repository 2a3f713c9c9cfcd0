/**
 * cuda-gdb's $_cuda_* convenience variables (cuda-gdb's cuda-convvars.c: grid and block
 * dimensions, the focus's block, thread, warp and lane, whether it is active, its line and call
 * depth) and `show convenience` listing them. samples/vars_structs: launch.json's grid (2,1,1)
 * and block (64,1,1); kernel.cu line 69 calls weigh() (whose first statement is line 33).
 */
import { join } from 'node:path';
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};
const value = (s: Session, expr: string): string => run(s, `print ${expr}`).replace(/^\$\d+ = /, '');

test('$_cuda_* follow the launch and the focus; show convenience lists them; they cannot be set', () => {
  const dir = join(ROOT, 'samples', 'vars_structs');
  const s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
  run(s, 'break 69 if threadIdx.x == 37 && blockIdx.x == 1');
  run(s, 'continue');
  expect(['x', 'y', 'z'].map((a) => value(s, `$_cuda_grid_dim_${a}`))).toEqual(['2', '1', '1']);
  expect(['x', 'y', 'z'].map((a) => value(s, `$_cuda_block_dim_${a}`))).toEqual(['64', '1', '1']);
  expect(['x', 'y', 'z'].map((a) => value(s, `$_cuda_focus_block_${a}`))).toEqual(['1', '0', '0']);
  expect(['x', 'y', 'z'].map((a) => value(s, `$_cuda_focus_thread_${a}`))).toEqual(['37', '0', '0']);
  // thread 37: warp 37 / 32 = 1, lane 37 % 32 = 5
  expect(value(s, '$_cuda_focus_warp')).toBe('1');
  expect(value(s, '$_cuda_focus_lane')).toBe('5');
  expect(value(s, '$_cuda_thread_active')).toBe('1');
  expect(value(s, '$_cuda_thread_lineno')).toBe('69');
  expect(value(s, '$_cuda_call_depth')).toBe('0');
  expect(value(s, '$_cuda_block_dim_x * $_cuda_grid_dim_x')).toBe('128');
  const conv = run(s, 'show convenience');
  expect(conv).toContain('$_cuda_grid_dim_x = 2');
  expect(conv).toContain('$_cuda_focus_thread_x = 37');
  expect(consoleOf(engineOf(s)).execute('set $_cuda_focus_lane = 3').error).toBe(true);
  run(s, 'step'); // into weigh(): one call deeper, at its first line
  expect(value(s, '$_cuda_call_depth')).toBe('1');
  expect(value(s, '$_cuda_thread_lineno')).toBe('33');
});
