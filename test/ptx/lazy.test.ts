/**
 * Loading a module to run one kernel (issue #14): function bodies stay text until a kernel that
 * reaches them is about to run (parser.ts deferBodies, resolve.ts lazy). Expected values come
 * from the module text below: which functions each kernel calls, where each error sits.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FunctionDecl } from '../../src/ptx/ast.js';
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { bodyEnd, parsePtx } from '../../src/ptx/parser.js';
import { entryNames, entryOf, KernelProblems, type Program } from '../../src/ptx/resolve.js';
import { ROOT } from '../helpers.js';

// good calls twice (2x + 1); bad calls broken (an undefined symbol); unused has a syntax error
// and nothing calls it; tabled is reached only through the module-level table
const SRC = `.version 8.0
.target sm_80
.address_size 64

.global .align 8 .u64 table[1] = {tabled};

.func (.param .b32 r) tabled(.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  add.s32 %a, %a, 100;
  st.param.b32 [r], %a;
  ret;
}

.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  shl.b32 %a, %a, 1; // "}" in a comment
  add.s32 %a, %a, 1; /* } */
  st.param.b32 [r], %a;
  ret;
}

.func (.param .b32 r) broken(.param .b32 x)
{
  .reg .b32 %a;
  mov.b32 %a, nosuch;
  st.param.b32 [r], %a;
  ret;
}

.func unused()
{
  frobnicate.u32 %r1;
  ret;
}

.visible .entry good(.param .u64 out)
{
  .reg .b32 %t, %v;
  .reg .b64 %p, %o;
  mov.u32 %t, %tid.x;
  {
  .param .b32 a;
  st.param.b32 [a], %t;
  .param .b32 b;
  call.uni (b), twice, (a);
  ld.param.b32 %v, [b];
  }
  ld.param.u64 %p, [out];
  cvta.to.global.u64 %p, %p;
  mul.wide.u32 %o, %t, 4;
  add.s64 %p, %p, %o;
  st.global.u32 [%p], %v;
  ret;
}

.visible .entry bad(.param .u64 out)
{
  .reg .b32 %v;
  {
  .param .b32 a;
  st.param.b32 [a], 1;
  .param .b32 b;
  call.uni (b), broken, (a);
  ld.param.b32 %v, [b];
  }
  ret;
}
`;

const fn = (items: readonly { kind: string }[], name: string): FunctionDecl =>
  items.find((i): i is FunctionDecl => i.kind === 'function' && (i as FunctionDecl).name === name)!;

function lazyProgram(src = SRC): Program {
  const r = loadPtx(src, 'm.ptx', { lazy: true });
  expect(r.diagnostics).toEqual([]);
  return r.program!;
}

describe('bodyEnd', () => {
  test('matches braces outside comments and strings', () => {
    const text = 'x { a; { b; } .pragma "}"; // }\n /* } */ }  }';
    expect(bodyEnd(text, 2)).toBe(text.lastIndexOf('}', text.length - 3));
  });
  test('gives up (-1) where the token parser must decide', () => {
    expect(bodyEnd('{ "unterminated\n }', 0)).toBe(-1);
    expect(bodyEnd('{ /* open }', 0)).toBe(-1);
    expect(bodyEnd('{ ret;\n.entry k() { }', 0)).toBe(-1); // a lost `}`
    expect(bodyEnd('{ ret;', 0)).toBe(-1);
  });
});

describe('deferred bodies', () => {
  test('a deferred parse reports nothing in bodies until one is read, then what the full parse reports', () => {
    const eager = parsePtx(SRC, 'm.ptx');
    const at = SRC.indexOf('frobnicate');
    expect(eager.diagnostics.map((d) => d.span.start)).toEqual([at]);
    const lazy = parsePtx(SRC, 'm.ptx', { deferBodies: true });
    expect(lazy.diagnostics).toEqual([]);
    const unused = fn(lazy.module.items, 'unused');
    expect(unused.deferred?.read).toBe(false);
    expect(unused.body?.length).toBe(1); // `ret;` (the bad statement is skipped)
    expect(unused.deferred?.read).toBe(true);
    expect(unused.deferred?.diagnostics.map((d) => [d.span.start, d.message])).toEqual(eager.diagnostics.map((d) => [d.span.start, d.message]));
  });

  test('a deferred body parses to the statements the full parse gives', () => {
    const eager = parsePtx(SRC, 'm.ptx');
    const lazy = parsePtx(SRC, 'm.ptx', { deferBodies: true });
    for (const name of ['tabled', 'twice', 'good', 'bad']) {
      const e = fn(eager.module.items, name);
      const l = fn(lazy.module.items, name);
      const text = (b: unknown): string => JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      expect(text(l.body)).toBe(text(e.body));
      expect([l.span.start, l.span.end]).toEqual([e.span.start, e.span.end]);
    }
  });

  test('ISA 1.x modules are parsed whole (their bodies carry module state)', () => {
    const src = '.version 1.4\n.target sm_13\n.entry k\n{\n  .param .u32 n;\n  exit;\n}\n';
    const k = fn(parsePtx(src, 'old.ptx', { deferBodies: true }).module.items, 'k');
    expect(k.deferred).toBeUndefined();
    expect(k.params.map((p) => p.name)).toEqual(['n']);
  });
});

describe('resolving what a kernel reaches', () => {
  test('a lazy load resolves nothing; a kernel brings in its callees and the tabled functions only', () => {
    const p = lazyProgram();
    expect(p.functions.size).toBe(0);
    expect(entryNames(p)).toEqual(['good', 'bad']);
    expect(entryOf(p, 'good')?.name).toBe('good');
    expect([...p.functions.keys()].sort()).toEqual(['good', 'tabled', 'twice']);
    expect(fn(p.module.items, 'unused').deferred?.read).toBe(false);
    expect(fn(p.module.items, 'broken').deferred?.read).toBe(false);
    expect(entryOf(p, 'nosuchkernel')).toBeUndefined();
  });

  test('an error in code the kernel reaches is located; other kernels still run', () => {
    const p = lazyProgram();
    const problems = (): KernelProblems => {
      try {
        entryOf(p, 'bad');
      } catch (e) {
        if (e instanceof KernelProblems) return e;
      }
      throw new Error('no KernelProblems');
    };
    const e = problems();
    expect(e.diagnostics.map((d) => [d.span.start, d.message])).toEqual([[SRC.indexOf('nosuch;'), "undefined symbol 'nosuch'"]]);
    expect(problems().diagnostics).toEqual(e.diagnostics); // asked again, the same answer
    expect(entryOf(p, 'good')?.name).toBe('good');
  });

  test('the whole-module load refuses the module for errors anywhere', () => {
    const r = loadPtx(SRC, 'm.ptx');
    expect(r.program).toBeUndefined();
    expect(r.diagnostics.map((d) => d.span.start)).toEqual([SRC.indexOf('frobnicate')]);
  });

  test('a kernel runs the same from a lazy program; instructions are numbered over what is resolved, ids over every body', () => {
    const p = lazyProgram();
    const launch = parseLaunch({ kernel: 'good', block: [4, 1, 1], args: [{ name: 'out', type: 'u32', count: 4 }] }, p, '.');
    const m = new Machine(p, launch, DEFAULT_RUN_OPTIONS);
    m.run();
    const base = m.buffers[0]!.alloc.base;
    expect([...new Uint32Array(m.arena.bank.u8.slice(base, base + 16).buffer)]).toEqual([1, 3, 5, 7]);
    expect(m.functions.map((f) => f.name)).toEqual(['tabled', 'twice', 'good']); // module order
    // ids: module order of all six bodies
    expect(['tabled', 'twice', 'broken', 'unused', 'good', 'bad'].map((n) => m.functionAddress(n))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(m.globalBase.has('broken')).toBe(false);
  });

  test('body-level variables join the module lists in resolution order, and replaying the history gives the same lists', () => {
    const src = `.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b32 top[1];
.func fa()
{
  .shared .align 4 .b32 sa[1];
  .global .align 4 .b32 ga[1];
  st.shared.u32 [sa], 1;
  ret;
}
.func fb()
{
  .shared .align 4 .b32 sb[1];
  .global .align 4 .b32 gb[1];
  st.shared.u32 [sb], 2;
  ret;
}
.visible .entry ka()
{
  call.uni fa, ();
  ret;
}
.visible .entry kb()
{
  call.uni fb, ();
  ret;
}
`;
    const first = lazyProgram(src);
    entryOf(first, 'kb');
    entryOf(first, 'ka');
    // kb's callee was resolved first; the whole-module order would be sa, sb
    expect(first.shared.map((v) => v.name)).toEqual(['top', 'sb', 'sa']);
    expect(first.globals.map((v) => v.name)).toEqual(['gb', 'ga']);
    const replica = lazyProgram(src);
    for (const roots of first.deferred!.history) replica.deferred!.reach(roots);
    expect(replica.shared.map((v) => v.name)).toEqual(['top', 'sb', 'sa']);
    expect(replica.globals.map((v) => v.name)).toEqual(['gb', 'ga']);
    const whole = loadPtx(src, 'm.ptx').program!;
    expect(whole.shared.map((v) => v.name)).toEqual(['top', 'sa', 'sb']);
  });
});

describe('function pointers between kernels', () => {
  // maker stores target's address; caller calls through the pointer it is given (target(10) = 15)
  const PTRS = `.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) target(.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  add.s32 %a, %a, 5;
  st.param.b32 [r], %a;
  ret;
}
.visible .entry caller(.param .u64 fp, .param .u64 out)
{
  .reg .b64 %f, %p;
  .reg .b32 %v;
  ld.param.u64 %f, [fp];
  {
  .param .b32 a;
  st.param.b32 [a], 10;
  .param .b32 b;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (b), %f, (a), proto;
  ld.param.b32 %v, [b];
  }
  ld.param.u64 %p, [out];
  cvta.to.global.u64 %p, %p;
  st.global.u32 [%p], %v;
  ret;
}
.visible .entry maker(.param .u64 out)
{
  .reg .b64 %f, %p;
  mov.u64 %f, target;
  ld.param.u64 %p, [out];
  cvta.to.global.u64 %p, %p;
  st.global.u64 [%p], %f;
  ret;
}
`;
  // a function pointer is FUNC_HI (0x7a00) in the high word and the function's id (target: body 0) in the low one
  const pointer = 0x7a00 * 2 ** 32 + 0;
  const call = (p: Program): { out: number; fault: string | undefined } => {
    const launch = parseLaunch({ kernel: 'caller', args: [{ name: 'fp', type: 'u64', value: pointer }, { name: 'out', type: 'u32', count: 1 }] }, p, '.');
    const m = new Machine(p, launch, DEFAULT_RUN_OPTIONS);
    const r = m.run();
    return { out: m.arena.bank.u32[m.buffers[0]!.alloc.base >> 2]!, fault: r.fault ? `${r.fault.kind}: ${r.fault.message}` : undefined };
  };

  test('the pointer maker stores is the one caller is given', () => {
    const p = lazyProgram(PTRS);
    const m = new Machine(p, parseLaunch({ kernel: 'maker', args: [{ name: 'out', type: 'u64', count: 1 }] }, p, '.'), DEFAULT_RUN_OPTIONS);
    m.run();
    const at = m.buffers[0]!.alloc.base >> 2;
    expect(m.arena.bank.u32[at + 1]! * 2 ** 32 + m.arena.bank.u32[at]!).toBe(pointer);
  });

  test('a call through it works once a kernel reaching the function has been loaded', () => {
    expect(call(loadPtx(PTRS, 'm.ptx').program!)).toEqual({ out: 15, fault: undefined });
    const p = lazyProgram(PTRS);
    entryOf(p, 'maker');
    expect(call(p)).toEqual({ out: 15, fault: undefined });
  });

  test('without one it is a bad-call fault that says why', () => {
    const r = call(lazyProgram(PTRS));
    expect(r.fault).toContain('bad-call');
    expect(r.fault).toContain("call to 'target' through a function pointer: kernel caller cannot reach it by its own code");
  });
});

describe('the CLI loads only the launched kernel', () => {
  const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptxdbg-lazy-'));
    writeFileSync(join(dir, 'm.ptx'), SRC);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (args: string[]): { code: number; err: string; out: string } => {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
    return { code: r.status ?? -1, err: r.stderr, out: r.stdout };
  };
  const lineOf = (needle: string): number => SRC.slice(0, SRC.indexOf(needle)).split('\n').length;

  test('run: a kernel whose code is fine runs; one reaching an error is exit 1 with the located error', () => {
    expect(cli(['run', 'm.ptx', '--kernel', 'good']).code).toBe(0);
    const bad = cli(['run', 'm.ptx', '--kernel', 'bad']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`m.ptx:${lineOf('nosuch;')}:`);
    expect(bad.err).toContain("undefined symbol 'nosuch'");
    expect(bad.err).toContain('1 error in m.ptx (in the code of kernel bad)');
  });

  test('the debugger says why a function it has no code for is missing', () => {
    const r = cli(['m.ptx', '--kernel', 'good', '--batch', '--ex', 'disassemble twice', '--ex', 'disassemble broken']);
    expect(r.out + r.err).toContain('ld.param.b32 %a, [x];');
    expect(r.out + r.err).toContain('Function "broken" is not reachable from kernel good');
  });

  test('check still reads every body', () => {
    const r = cli(['check', 'm.ptx']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`m.ptx:${lineOf('frobnicate')}:`);
  });
});
