/**
 * `check`'s shortcut (ptx/body-keys.ts, known-keys.ts): each instruction of a body becomes a key,
 * its text with the body's own names replaced by what the resolver reads of them, and a body
 * whose kinds all passed a stand-in is clean unparsed. Expected keys are written out by hand from
 * the bodies below (a register is its type, a parameter its storage and shape, a label of the
 * body one mark); verdicts are checked against the whole load (loadPtx and the interpreter's
 * selection), which stays the reference for every message.
 */
import { parsePtx } from '../../src/ptx/parser.js';
import { BodyKeys } from '../../src/ptx/body-keys.js';
import type { FunctionDecl } from '../../src/ptx/ast.js';
import { loadPtx } from '../../src/ptx/index.js';
import { sweepShare } from '../../src/cli/check-sweep.js';
import { unsupportedInstructions } from '../../src/exec/support.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n\n';

/** The keys of the module's only function with a body (undefined: it goes the full way). */
function keysOf(text: string): string[] | undefined {
  const { module, diagnostics } = parsePtx(HEAD + text, 'm.ptx', { deferBodies: true });
  expect(diagnostics).toEqual([]);
  const fn = module.items.find((i): i is FunctionDecl => i.kind === 'function' && i.deferred !== undefined);
  return new BodyKeys(module).keys(fn!);
}

const KERNEL = (r: string, p: string, label: string): string => `.visible .entry k(.param .u64 ${p})
{
  .reg .b32 %${r}<3>;
  .reg .b64 %${r}d<2>;
  .reg .pred %${r}p<2>;
  ld.param.u64 %${r}d1, [${p}];
  setp.eq.s32 %${r}p1, %${r}1, 0;
  @%${r}p1 bra ${label};
  add.s32 %${r}2, %${r}1, 1;
${label}:
  ret;
}
`;

describe('body keys', () => {
  test("a body's instructions: registers by type, a kernel parameter by its shape, a label of the body by one mark", () => {
    expect(keysOf(KERNEL('r', 'k_p', 'DONE'))).toEqual([
      'ld.param.u64 \x01%b64, [\x02kernelParam:param:u64:1:8:8::\x00];',
      'setp.eq.s32 \x01%pred, \x01%b32, 0;',
      '@\x01%pred bra \x03;',
      'add.s32 \x01%b32, \x01%b32, 1;',
      // `ret` ends the body: no implied end
      'ret;',
    ]);
  });

  test('the same statements under other names have the same keys', () => {
    expect(keysOf(KERNEL('x', 'other_param', '$L__BB0_9'))).toEqual(keysOf(KERNEL('r', 'k_p', 'DONE')));
  });

  test("a body that can fall off its end gets the resolver's implied ret", () => {
    const keys = keysOf('.func f()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %tid.x;\n}\n');
    // %tid.x is the module's (a special register): kept as written
    expect(keys).toEqual(['mov.u32 \x01%b32, %tid.x;', '\x05ret']);
  });

  test('what the shortcut cannot read as the resolver does goes the full way', () => {
    // a name used in a block before the block declares it: the resolver takes the later declaration
    expect(keysOf('.func f()\n{\n  .reg .b32 %r<2>;\n  {\n  .param .b32 a;\n  st.param.b32 [b], %r1;\n  .param .b32 b;\n  }\n  ret;\n}\n')).toBeUndefined();
    // the same register twice in one scope (the resolver reports it)
    expect(keysOf('.func f()\n{\n  .reg .b32 %x;\n  .reg .b32 %x;\n  ret;\n}\n')).toBeUndefined();
    // ranges that name the same registers: %r<20> has %r12, and so has %r1<5>
    expect(keysOf('.func f()\n{\n  .reg .b32 %r<20>;\n  .reg .b32 %r1<5>;\n  ret;\n}\n')).toBeUndefined();
    // a label defined twice
    expect(keysOf('.func f()\n{\nL:\nL:\n  ret;\n}\n')).toBeUndefined();
    // a register with an initializer, a vector register
    expect(keysOf('.func f()\n{\n  .reg .b32 %x = 1;\n  ret;\n}\n')).toBeUndefined();
    expect(keysOf('.func f()\n{\n  .reg .v2 .b32 %v;\n  ret;\n}\n')).toBeUndefined();
    // a component of a local name (`%r1.x`) and a string
    expect(keysOf('.func f()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %r1.x;\n  ret;\n}\n')).toBeUndefined();
  });

  test('ranges beside each other that name different registers are read (%r<N> and %rd<M>)', () => {
    expect(keysOf('.func f()\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n  cvt.u64.u32 %rd2, %r2;\n  ret;\n}\n')).toEqual(['cvt.u64.u32 \x01%b64, \x01%b32;', 'ret;']);
  });

  test('a register out of its range is not the body\'s: kept as written, so the stand-in finds it undeclared', () => {
    // %r<3> declares %r0..%r2 (PTX ISA, "Parameterized Variable Names"): %r3 is undeclared
    expect(keysOf('.func f()\n{\n  .reg .b32 %r<3>;\n  mov.u32 %r3, 1;\n  ret;\n}\n')).toEqual(['mov.u32 %r3, 1;', 'ret;']);
  });
});

const fn = (i: number, body: string, reg = '.b32', regs = 4): string => `.func f${i}(.param .b32 x${i})\n{\n  .reg ${reg} %a<${regs}>;\n  ld.param.b32 %a1, [x${i}];\n${body}  ret;\n}\n\n`;

/** check's own verdict (the interpreter's selection counts) against what the whole load reports. */
function verdicts(text: string): { sweep: boolean; full: boolean; threads: boolean } {
  const loaded = loadPtx(text, 'm.ptx');
  const full = loaded.diagnostics.length === 0 && loaded.program !== undefined && unsupportedInstructions(loaded.program).length === 0;
  return { sweep: sweepShare({ text, label: 'm.ptx', share: { index: 0, of: 1 } }), full, threads: sweepShare({ text, label: 'm.ptx', share: { index: 1, of: 2 } }) };
}

describe('check by kinds', () => {
  test('a clean module of repeated kinds is clean', () => {
    let text = HEAD;
    for (let i = 0; i < 6; i++) text += fn(i, `  add.s32 %a2, %a1, ${i % 2};\n`);
    expect(verdicts(text)).toEqual({ sweep: true, full: true, threads: true });
  });

  test('a statement that passed in one body is checked again where its register is not declared', () => {
    // f1 declares %a<3>, so %a0..%a2 (PTX ISA, "Parameterized Variable Names"): its %a3 is undeclared
    const text = HEAD + fn(0, '  add.s32 %a3, %a1, 1;\n') + fn(1, '  add.s32 %a3, %a1, 1;\n', '.b32', 3);
    expect(loadPtx(text, 'm.ptx').diagnostics.map((d) => d.message)).toEqual(["undeclared register '%a3'"]);
    expect(verdicts(text)).toEqual({ sweep: false, full: false, threads: false });
  });

  test('an undefined symbol, an unknown opcode, or an instruction the interpreter cannot run in a later body is found', () => {
    const good = fn(0, '  add.s32 %a2, %a1, 1;\n') + fn(1, '  add.s32 %a2, %a1, 1;\n');
    for (const bad of ['  add.s32 %a2, %a1, nosuch;\n', '  addd.s32 %a2, %a1, 1;\n', '  redux.sync.min.f32 %a2, %a1, 0xffffffff;\n']) {
      const text = HEAD + good + fn(2, bad);
      expect(verdicts(text)).toEqual({ sweep: false, full: false, threads: false });
    }
  });

  test('a label used in one body and not defined in the next: the second body has no such label', () => {
    const text = `${HEAD}.func f0()\n{\n  bra L;\nL:\n  ret;\n}\n\n.func f1()\n{\n  bra L;\n  ret;\n}\n\n`;
    expect(verdicts(text)).toEqual({ sweep: false, full: false, threads: false });
  });
});
