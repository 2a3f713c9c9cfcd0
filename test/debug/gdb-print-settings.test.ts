/**
 * gdb's print settings change what `print` and `bt` show (gdb manual, "Print Settings" and
 * "Screen Size"): `set print pretty` (one member per line, two spaces per level), `set print
 * address off` (pointers without their address, only `<symbol>`), `set print elements N`
 * (arrays and strings cut with `...`), `set print repeats N`, and `set width N` (lines broken
 * after a `, ` and indented by the depth). Values from samples/vars_structs/kernel.cu at line 69
 * in thread (0,0,0) of block (0,0,0), i = 0: origin = {1.5, -2} (launch.json's bytes
 * 0x3fc00000, 0xc0000000), in[0] = 18.75 (in/in.bin), so p.pos = {20.25, -2}, p.mass = 1,
 * p.tag = 'A', p.alive = (0 % 3) != 0 = false, p.color = RED, p.hist[k] = 0 * k - 3,
 * local[] = 11 zeros and i = 0: 12 zeros, label = "abcdefg", sp = &sTile[1].
 */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

describe('set print pretty|address|elements|repeats and set width (vars_structs, line 69)', () => {
  let s: Session;
  beforeAll(() => {
    const dir = join(ROOT, 'samples', 'vars_structs');
    s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
    run(s, 'break 69 if threadIdx.x == 0 && blockIdx.x == 0');
    run(s, 'continue');
  });
  afterEach(() => {
    for (const c of ['set print pretty off', 'set print address on', 'set print elements 200', 'set print repeats 10', 'set width unlimited']) run(s, c);
  });
  const value = (cmd: string): string => run(s, cmd).replace(/^\$\d+ = /, '');

  test('pretty off (the default) prints a struct on one line', () => {
    expect(value('print origin')).toBe('{x = 1.5, y = -2}');
  });

  test('pretty on: one member per line, nested structs indented two more spaces', () => {
    run(s, 'set print pretty on');
    expect(run(s, 'show print pretty')).toBe('Pretty formatting of structures is on.');
    expect(value('print origin')).toBe('{\n  x = 1.5,\n  y = -2\n}');
    expect(value('print p')).toBe([
      '{',
      '  id = 0,',
      '  pos = {',
      '    x = 20.25,',
      '    y = -2',
      '  },',
      '  mass = 1,',
      "  tag = 65 'A',",
      '  alive = false,',
      '  color = RED,',
      '  flags = 0,',
      '  level = 0,',
      '  hist = {-3, -3, -3, -3}',
      '}',
    ].join('\n'));
  });

  test('pretty on applies to info locals too', () => {
    run(s, 'set print pretty on');
    expect(run(s, 'info locals')).toContain('p = {\n  id = 0,\n  pos = {\n    x = 20.25,\n    y = -2\n  },');
  });

  test('address off: a pointer shows only the symbol it points into; bt shows no address', () => {
    expect(value('print sp')).toMatch(/^\(int \*\) 0x[0-9a-f]+ <sTile\+4>$/);
    run(s, 'set print address off');
    expect(run(s, 'show print address')).toBe('Printing of addresses is off.');
    expect(value('print sp')).toBe('(int *) <sTile+4>');
    // "with print address off, you should get the same text for backtraces on all machines"
    expect(run(s, 'bt')).not.toMatch(/0x/);
  });

  test('elements N cuts arrays and strings after N with "..."', () => {
    run(s, 'set print elements 4');
    expect(value('print label')).toBe('"abcd"...');
    run(s, 'set print repeats unlimited');
    expect(value('print local')).toBe('{0, 0, 0, 0...}');
  });

  test('repeats N: runs longer than N collapse to <repeats N times>', () => {
    expect(value('print local')).toBe('{0 <repeats 12 times>}');
    run(s, 'set print repeats 3');
    expect(value('print p.hist')).toBe('{-3 <repeats 4 times>}');
  });

  test('width N breaks a long value after ", " and indents by the depth', () => {
    run(s, 'set width 16');
    expect(run(s, 'show width')).toBe('Number of characters gdb thinks are in a line is 16.');
    // "$N = {x = 1.5, " is 15 characters, and "y = -2}" would pass 16
    expect(value('print origin')).toBe('{x = 1.5, \n  y = -2}');
  });
});
