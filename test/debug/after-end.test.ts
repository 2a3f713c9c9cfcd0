/** After the last step every thread has exited, yet global memory stays readable and watchable (rr's habit). */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

test('goto end, print out[5], watch out[5], reverse-continue lands on the writing step', () => {
  const dir = join(ROOT, 'samples', 'origin_flow');
  const s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
  consoleOf(engineOf(s)).execute('goto end');
  expect(s.where().state).not.toBe('active');
  // out[5] = s[6] = 2 * (in[6] + 1) = 2 * 61
  expect(consoleOf(engineOf(s)).execute('print out[5]').output).toBe('$1 = 122');
  expect(consoleOf(engineOf(s)).execute('watch out[5]').error).toBe(false);
  const r = consoleOf(engineOf(s)).execute('reverse-continue');
  expect(r.output).toContain('Old value = 0\nNew value = 122');
  expect(s.where().thread).toEqual([5, 0, 0]);
  expect(s.where().line).toBe(18);
  expect(consoleOf(engineOf(s)).execute('print out[5]').output).toBe('$2 = 0');
});
