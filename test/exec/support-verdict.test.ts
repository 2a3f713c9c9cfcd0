/**
 * `check`'s verdict on what the interpreter can run (exec/support.ts supportVerdict): each kind of
 * instruction (selectionKey) is selected once per module and the answer reused. It must count, per
 * function, exactly the instructions the full selection (supportCheck) reports, whatever order the
 * kinds come in. Which instructions are unsupported comes from the PTX ISA: redux.sync takes
 * .u32/.s32/.b32 on sm_80; .f32 min/max needs sm_100a, and the interpreter refuses it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPtx } from '../../src/ptx/index.js';
import type { Diagnostic } from '../../src/ptx/diagnostics.js';
import type { Program } from '../../src/ptx/resolve.js';
import { SelectionKeys, supportCheck, supportVerdict } from '../../src/exec/support.js';
import { ROOT } from '../helpers.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n\n';
function kernel(name: string, lines: readonly string[]): string {
  return `.visible .entry ${name}(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n  mov.u32 %r1, %tid.x;\n${lines.map((l) => `  ${l}\n`).join('')}  ret;\n}\n\n`;
}
function programOf(text: string): Program {
  const loaded = loadPtx(text, 'v.ptx');
  expect(loaded.diagnostics).toEqual([]);
  return loaded.program!;
}

describe('supportVerdict', () => {
  const U32 = 'redux.sync.min.u32 %r2, %r1, 0xffffffff;';
  const F32 = 'redux.sync.min.f32 %r2, %r1, 0xffffffff;';

  test('the same opcode with another type is another kind: the unsupported one is counted in every function, in either order', () => {
    const text = HEAD + kernel('a', [U32, U32]) + kernel('b', [F32, U32, F32]) + kernel('c', [U32]) + kernel('d', [F32]);
    const p = programOf(text);
    const verdict = supportVerdict(p);
    expect(['a', 'b', 'c', 'd'].map((n) => verdict(p.functions.get(n)!))).toEqual([0, 2, 0, 1]);
    // a fresh verdict meeting the unsupported kind first
    const again = supportVerdict(p);
    expect(['d', 'b', 'a', 'c'].map((n) => again(p.functions.get(n)!))).toEqual([1, 2, 0, 0]);
  });

  test('keys tell apart what selection reads (types, immediates, guards), not register names or spans', () => {
    const p = programOf(HEAD + kernel('k', ['add.u32 %r2, %r1, 1;', 'add.u32 %r3, %r2, 1;', 'add.u32 %r3, %r2, 2;', 'add.f32 %f2, %f1, %f1;', 'add.f32 %f3, %f2, %f2;']));
    const keys = new SelectionKeys();
    const k = p.functions.get('k')!.instrs.map((ins) => keys.of(ins));
    // instructions 1..5 after the mov: the first two differ only in registers
    expect(k[1]).toBe(k[2]);
    expect(k[3]).not.toBe(k[2]);
    expect(k[4]).toBe(k[5]);
    expect(k[4]).not.toBe(k[1]);
  });

  test('on every sample module, each function counts what the full selection reports', () => {
    const dir = join(ROOT, 'samples');
    const files = readdirSync(dir).flatMap((d) => ['kernel.G.ptx', 'kernel.O3.ptx'].map((f) => join(dir, d, f))).filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(20);
    let functions = 0;
    for (const f of files) {
      const loaded = loadPtx(readFileSync(f, 'utf8'), f);
      if (loaded.program === undefined) continue;
      const verdict = supportVerdict(loaded.program);
      const full = supportCheck(loaded.program);
      for (const fn of loaded.program.functions.values()) {
        const out: Diagnostic[] = [];
        full(fn, out);
        expect([f, fn.name, verdict(fn)]).toEqual([f, fn.name, out.length]);
        functions++;
      }
    }
    expect(functions).toBeGreaterThan(40);
  });
});
