/**
 * `check`'s fast verdict (ptx/index.ts sweepClean): every body parsed and resolved one at a time,
 * or only a share of them. It must find whatever a whole load finds (any diagnostic makes it
 * false), and every body must fall in exactly one share. Expected values come from the module
 * text below: which function holds which error.
 */
import { loadPtx, shareOf, sweepClean } from '../../src/ptx/index.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n\n';
/** Function `f<i>`; `bad` puts an undefined symbol in it (a resolution error). */
function fn(i: number, bad = false): string {
  return `.func (.param .b32 r) f${i}(.param .b32 x)\n{\n  .reg .b32 %a;\n  ld.param.b32 %a, [x];\n  add.s32 %a, %a, ${bad ? 'nosuch' : i};\n  st.param.b32 [r], %a;\n  ret;\n}\n\n`;
}
function module(n: number, badAt = -1): string {
  let s = HEAD;
  for (let i = 0; i < n; i++) s += fn(i, i === badAt);
  return s;
}

describe('sweepClean', () => {
  test('a clean module is clean, each function handed over once, in module order', () => {
    const seen: string[] = [];
    expect(sweepClean(module(5), 'm.ptx', (_p, f) => { seen.push(f.name); return 0; }, undefined, { byKinds: false })).toBe(true);
    expect(seen).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
  });

  test('a resolution error in any body, a syntax error, or a problem the caller counts makes it false', () => {
    for (const at of [0, 2, 4]) {
      expect(loadPtx(module(5, at), 'm.ptx').diagnostics.length).toBeGreaterThan(0);
      expect(sweepClean(module(5, at), 'm.ptx', () => 0)).toBe(false);
      expect(sweepClean(module(5, at), 'm.ptx', () => 0, undefined, { byKinds: false })).toBe(false);
    }
    expect(sweepClean(module(3).replace('ret;\n}\n\n.func (.param .b32 r) f2', 'ret\n}\n\n.func (.param .b32 r) f2'), 'm.ptx', () => 0)).toBe(false);
    expect(sweepClean(module(3), 'm.ptx', (_p, f) => (f.name === 'f1' ? 1 : 0), undefined, { byKinds: false })).toBe(false);
  });

  test('a share sees only its own bodies: the error in f4 is found by the share holding f4 only', () => {
    const text = module(6, 4);
    const found = [0, 1, 2].map((index) => {
      const names: string[] = [];
      const clean = sweepClean(text, 'm.ptx', (_p, f) => { names.push(f.name); return 0; }, { index, of: 3 }, { byKinds: false });
      return { clean, names };
    });
    // six bodies of equal length, three shares: two each, in order (f4 never reaches `each`)
    expect(found.map((x) => x.names)).toEqual([['f0', 'f1'], ['f2', 'f3'], ['f5']]);
    expect(found.map((x) => x.clean)).toEqual([true, true, false]);
  });
});

describe('shareOf', () => {
  test('bodies split into consecutive runs of about equal text', () => {
    // bodies at 0, 10, 20, 30 in 40 characters: halves of 20
    expect([...shareOf([0, 10, 20, 30], 40, { index: 0, of: 2 })]).toEqual([1, 1, 0, 0]);
    expect([...shareOf([0, 10, 20, 30], 40, { index: 1, of: 2 })]).toEqual([0, 0, 1, 1]);
    // one long body (0..90) and one short: the long one's middle (45) is in the first half
    expect([...shareOf([0, 90], 100, { index: 0, of: 2 })]).toEqual([1, 0]);
  });

  test('every body falls in exactly one share, whatever the sizes and the number of shares', () => {
    const starts = [5, 6, 40, 41, 42, 300, 301, 999];
    for (const of of [1, 2, 3, 5, 8, 12]) {
      const count = new Array<number>(starts.length).fill(0);
      for (let index = 0; index < of; index++) shareOf(starts, 1000, { index, of }).forEach((m, i) => { count[i]! += m; });
      expect(count).toEqual(starts.map(() => 1));
    }
  });
});
