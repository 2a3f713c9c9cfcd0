/**
 * Damaged DWARF in samples/vars_structs/kernel.G.ptx (edited in memory): the debugger keeps
 * working, the damaged variables are unavailable with a reason (never bytes from the wrong
 * place), undamaged ones still print, and the DWARF warnings are surfaced.
 */
import { join } from 'node:path';
import { infoArgs, infoLocals, infoVariables, printExpression, PrintError, variableTree } from '../../src/engine/print/index.js';
import type { ThreadView } from '../../src/engine/types.js';
import { f32File, loadSample, stopAt, type Loaded } from './printHarness.js';

const IN = f32File(join(loadSample('vars_structs').dir, 'in/in.bin'));

function damaged(edit: (src: string) => string): Loaded {
  return loadSample('vars_structs', 'G', (src) => {
    const out = edit(src);
    if (out === src) throw new Error('the edit did not apply');
    return out;
  });
}

/** The .debug_info bytes of `local`'s location: block of 11 = DW_OP_addr __local_depot1, DW_OP_plus_uconst 64. */
const LOCAL_LOCATION = '.b8 11\n.b8 3\n.b64 __local_depot1\n.b8 35\n.b8 64\n';

function at69(s: Loaded): ThreadView {
  return stopAt(s, { block: [0, 0, 0], thread: 3, line: 69 }).view();
}

function print(s: Loaded, v: ThreadView, e: string): string {
  try {
    return printExpression(s.info, v, e).replace(/^\$\d+ = /, '');
  } catch (x) {
    if (x instanceof PrintError) return `error: ${x.message}`;
    throw x;
  }
}

const P3 = `{id = 3, pos = {x = ${IN[3]! + 1.5}, y = -0.5}, mass = 4, tag = 68 'D', alive = false, color = RED, flags = 3, level = 3, hist = {-3, 0, 3, 6}}`;

describe('malformed DWARF', () => {
  test('an unknown opcode in one location expression: that variable is an error, the others print', () => {
    const s = damaged((src) => src.replace(LOCAL_LOCATION, LOCAL_LOCATION.replace('.b8 3\n', '.b8 255\n')));
    const v = at69(s);
    expect(print(s, v, 'local')).toBe('<error: cannot read local: malformed location expression (unknown DW_OP 0xff)>');
    // Parts of an unavailable value are unavailable too (gdb: a member of <optimized out> is too).
    expect(print(s, v, 'local[1]')).toMatch(/^<error: cannot read local: malformed location expression/);
    expect(print(s, v, 'local[1] + 1')).toMatch(/^error: cannot read local: malformed location expression/);
    expect(print(s, v, 'p')).toBe(P3);
    expect(print(s, v, 'tid')).toBe('3');
    expect(s.info.warnings).toContain('.debug_info at offset 0x000003cc: unknown DW_OP 0xff');
    const locals = infoLocals(s.info, v);
    expect(locals).toContain('local = <error: cannot read local: malformed location expression (unknown DW_OP 0xff)>');
    expect(locals).toContain(`p = ${P3}`);
    expect(locals.split('\n').pop()).toBe('warning: 1 problem in the DWARF of this module; some variables may be missing or unavailable. First: .debug_info at offset 0x000003cc: unknown DW_OP 0xff');
  });

  test('a location relative to a symbol the program does not have', () => {
    const s = damaged((src) => src.replace('.b64 __local_depot1\n.b8 35\n.b8 16\n', '.b64 __local_depot9\n.b8 35\n.b8 16\n'));
    const v = at69(s);
    expect(print(s, v, 'p')).toBe('<error: cannot read p: the location names __local_depot9, which the program does not have>');
    expect(print(s, v, 'p.id')).toBe('<error: cannot read p: the location names __local_depot9, which the program does not have>');
    expect(print(s, v, '&p')).toBe('error: cannot read p: the location names __local_depot9, which the program does not have');
    expect(print(s, v, 'local')).toBe('{0 <repeats 11 times>, 3}');
    expect(s.info.warnings.join('\n')).toMatch(/bad relocation '__local_depot9'/);
    expect(variableTree(s.info, v).locals.find((n) => n.name === 'p')!.value).toMatch(/^<error: cannot read p/);
  });

  test('a type reference out of the section: the variable has an unknown type', () => {
    const s = damaged((src) => src.replace('.b8 98,105,116,115\n.b8 0\n.b8 1\n.b8 60\n.b32 538\n', '.b8 98,105,116,115\n.b8 0\n.b8 1\n.b8 60\n.b32 99999\n'));
    const v = at69(s);
    expect(print(s, v, 'bits')).toMatch(/^<error: the type is unknown \(<bad type reference>\)>$/);
    expect(print(s, v, 'bits.f')).toBe('error: Attempt to extract a component of a value that is not a structure.');
    expect(print(s, v, 'acc')).toBe('1');
    expect(s.info.warnings.length).toBeGreaterThan(0);
    expect(infoLocals(s.info, v)).toContain('bits = <error: the type is unknown (<bad type reference>)>');
  });

  test('a unit length past the end of .debug_info: no variables, everything else works', () => {
    const s = damaged((src) => src.replace('.section\t.debug_info\n\t{\n.b32 1417\n', '.section\t.debug_info\n\t{\n.b32 99417\n'));
    const v = at69(s);
    expect(print(s, v, 'p')).toBe('error: No symbol "p" in current context.');
    expect(print(s, v, 'threadIdx.x')).toBe('3');
    expect(print(s, v, '((@shared int *)&sTile)[4]')).toBe('16');
    expect(s.info.warnings).toEqual(['.debug_info at offset 0x00000000: unit length 99417 exceeds the 1417 bytes left in the section']);
    expect(infoLocals(s.info, v)).toBe('No symbol table info available.\nwarning: 1 problem in the DWARF of this module; some variables may be missing or unavailable. First: .debug_info at offset 0x00000000: unit length 99417 exceeds the 1417 bytes left in the section');
    expect(infoArgs(s.info, v)).toMatch(/^No symbol table info available\.\nwarning: /);
    expect(infoVariables(s.info, v)).toMatch(/^All defined variables \(no debug info/);
  });

  test('an abbreviation with an unknown form: the unit cannot be read', () => {
    const s = damaged((src) => {
      const at = src.indexOf('.section\t.debug_abbrev');
      return src.slice(0, at) + src.slice(at).replace('.b8 73\n.b8 19\n', '.b8 73\n.b8 99\n');
    });
    const v = at69(s);
    expect(print(s, v, 'p')).toBe('error: No symbol "p" in current context.');
    expect(print(s, v, '$tid.x * 2')).toBe('6');
    expect(s.info.warnings.join('\n')).toMatch(/unknown DW_FORM 0x63/);
    expect(infoLocals(s.info, v)).toMatch(/warning: .*unknown DW_FORM 0x63/);
  });

  test('every truncation of .debug_info leaves print and info usable', () => {
    const src0 = loadSample('vars_structs').program.module.source;
    const start = src0.indexOf('.section\t.debug_info');
    const end = src0.indexOf('\t}', start);
    const lines = src0.slice(start, end).split('\n');
    let checked = 0;
    for (let keep = 3; keep < lines.length; keep += 37) {
      const s = loadSample('vars_structs', 'G', (src) => src.slice(0, start) + lines.slice(0, keep).join('\n') + '\n' + src.slice(end));
      const v = stopAt(s, { block: [0, 0, 0], thread: 3, line: 69 }).view();
      for (const e of ['p', 'local', 'tid', 'sTile[2]', 'origin', 'in[1]']) {
        const out = print(s, v, e);
        expect(out).not.toMatch(/internal error/);
      }
      expect(() => infoLocals(s.info, v)).not.toThrow();
      expect(() => infoArgs(s.info, v)).not.toThrow();
      expect(() => infoVariables(s.info, v)).not.toThrow();
      expect(() => variableTree(s.info, v)).not.toThrow();
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});
