/**
 * gdb's forms for references, unnamed bit-fields and the frame `finish` leaves, on
 * test/fixtures/refret (kernel.cu: each of 4 threads stores out[t] = 40 + t at line 17, then
 * `pick(out, 2)` at line 18 returns a reference to out[2], which holds 42; `pick`'s body is at
 * line 5; line 20 sets `Bits b = {5, 9}`, whose unnamed 5-bit field sits between lo and hi). gdb: `Run till exit from #0  pick (a=0x..., i=2) at kernel.cu:5`, `Value returned is
 * $1 = (int &) @0x...: 42`, and `print r` of a reference local `(int &) @0x...: 42` at &out[2].
 */
import { join } from 'node:path';
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const dir = join(ROOT, 'test', 'fixtures', 'refret');
const open = (): Session => openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('finish out of a function returning int& prints (int &) @ADDR: 42, ADDR being &out[2]', () => {
  const s = open();
  run(s, 'break pick');
  run(s, 'run');
  const a = /= \(int \*\) (0x[0-9a-f]+)/.exec(run(s, 'print a'))![1]!;
  const fin = run(s, 'finish');
  expect(fin).toMatch(new RegExp(`^Run till exit from #0  pick \\(a=${a}, i=2\\) at kernel\\.cu:5$`, 'm'));
  const out2 = BigInt(a) + 8n; // &a[2], ints of 4 bytes
  // `print a` above took $1
  expect(fin).toMatch(new RegExp(`\\nValue returned is \\$2 = \\(int &\\) @0x${out2.toString(16)}: 42$`));
  run(s, 'next');
  expect(run(s, 'print r')).toBe(`$3 = (int &) @0x${out2.toString(16)}: 42`);
  // a listing shows a reference without the type prefix, as gdb's info locals does
  expect(run(s, 'info locals')).toContain(`r = @0x${out2.toString(16)}: 42`);
});

test('reverse-finish names the frame it leaves as bt does', () => {
  const s = open();
  run(s, 'break pick');
  run(s, 'run');
  expect(run(s, 'reverse-finish')).toMatch(/^Run back to call of #0  pick \(a=0x[0-9a-f]+, i=2\) at kernel\.cu:5$/m);
});

test('an unnamed bit-field is not printed in a struct value (gdb hides it); ptype lists it', () => {
  const s = open();
  run(s, 'break 21');
  run(s, 'run');
  // aggregate initialisation skips unnamed bit-fields: lo = 5, hi = 9
  expect(run(s, 'print b')).toBe('$1 = {lo = 5, hi = 9}');
  expect(run(s, 'info locals')).toContain('b = {lo = 5, hi = 9}');
  expect(run(s, 'ptype b')).toBe('type = struct Bits {\n    unsigned int lo : 3;\n    unsigned int : 5;\n    unsigned int hi : 4;\n}');
});
