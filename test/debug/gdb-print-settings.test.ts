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
    for (const c of ['set print pretty off', 'set print address on', 'set print elements 200', 'set print repeats 10', 'set width unlimited', 'undisplay']) run(s, c);
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

  // gdb's display prints through the same value printer as print, so every setting applies
  test('display follows pretty, elements, repeats, address and width, as print does', () => {
    run(s, 'set print pretty on');
    expect(run(s, 'display origin')).toBe('1: origin = {\n  x = 1.5,\n  y = -2\n}');
    run(s, 'set print pretty off');
    run(s, 'set print elements 4');
    expect(run(s, 'display label')).toBe('2: label = "abcd"...');
    run(s, 'set print elements 200');
    run(s, 'set print repeats 3');
    expect(run(s, 'display p.hist')).toBe('3: p.hist = {-3 <repeats 4 times>}');
    run(s, 'set print address off');
    expect(run(s, 'display sp')).toBe('4: sp = (int *) <sTile+4>');
    // "5: origin = {x = 1.5, " is 22 characters and "y = -2}" would pass 24
    run(s, 'set width 24');
    expect(run(s, 'display origin')).toBe('5: origin = {x = 1.5, \n  y = -2}');
    // `display` alone shows them all again, with the settings of now
    expect(run(s, 'display')).toMatch(/^1: origin = \{x = 1\.5, \n {2}y = -2\}\n2: label = "abcdefg"\n/);
    expect(run(s, 'info display')).toBe(['Auto-display expressions now in effect:', 'Num Enb Expression',
      '1:   y  origin', '2:   y  label', '3:   y  p.hist', '4:   y  sp', '5:   y  origin'].join('\n'));
  });

  test('info variables follows elements and repeats (sTile[t] = t * t, all 64 written before line 69; cScale from its initializer)', () => {
    run(s, 'set print elements 4');
    const vars = run(s, 'info variables');
    expect(vars).toMatch(/^sTile = \{0, 1, 4, 9\.\.\.\}$/m);
    expect(vars).toMatch(/^cScale = \{0\.5, 1, 2, 4\}$/m);
    run(s, 'set print elements 3');
    expect(run(s, 'info variables')).toMatch(/^cScale = \{0\.5, 1, 2\.\.\.\}$/m);
  });

  test('info locals follows repeats and width', () => {
    run(s, 'set print repeats 20');
    expect(run(s, 'info locals')).toMatch(/^local = \{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0\}$/m);
    run(s, 'set width 30');
    // "local = {0, 0, 0, 0, 0, 0, 0, " is 30 characters: the next element goes on a line of its own, indented 2
    expect(run(s, 'info locals')).toMatch(/^local = \{0, 0, 0, 0, 0, 0, 0, \n {2}0, 0, 0, 0, 0\}$/m);
  });
});
