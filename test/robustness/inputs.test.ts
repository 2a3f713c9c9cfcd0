/**
 * Inputs that once crashed or hung ptxdbg (issue: no internal error on any input). Each must give a
 * located message or the behaviour the PTX ISA defines, never an exception or a hang.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openReplay } from '../../src/cli/debug.js';
import { readPtx } from '../../src/cli/common.js';
import { GeneratedCodeError, lanes, tryLaneLoop } from '../../src/exec/codegen.js';
import { LaunchError, parseLaunch, readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';
import { MAX_NESTING, parseExpression } from '../../src/engine/print/parser.js';
import { PrintError } from '../../src/engine/print/errors.js';
import { ptxFilesUnder, ROOT, tempDir } from '../helpers.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n';

/** Diagnostics of `check` (front end plus instruction selection) as `line: message`. */
function check(body: string): string[] {
  const src = HEAD + body;
  const r = loadPtx(src, 'k.ptx');
  const diags = [...r.diagnostics, ...(r.program ? unsupportedInstructions(r.program) : [])];
  return formatDiagnostics('k.ptx', src, diags)
    .split('\n')
    .filter((l) => l.startsWith('k.ptx:'))
    .map((l) => l.replace(/^k\.ptx:(\d+):\d+: error: /, '$1: '));
}

/** Runs entry `k(.param .u64 out)` with 32 threads; returns out[0..31] as u32. */
function run32(body: string): { out: number[]; fault: string | undefined } {
  const r = loadPtx(HEAD + body, 'k.ptx');
  if (!r.program) throw new Error(formatDiagnostics('k.ptx', HEAD + body, r.diagnostics));
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], args: [{ name: 'out', type: 'u32', count: 32 }] }, r.program, '.');
  const m = new Machine(r.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  const base = m.buffers[0]!.alloc.base;
  const out = [...new Uint32Array(m.arena.bank.u8.slice(base, base + 128).buffer)];
  return { out, fault: res.fault?.message };
}

/** out[tid] = tid + 1, with whatever comes after. */
const STORE = `
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;`;
const expected = Array.from({ length: 32 }, (_, i) => i + 1);

describe('falling off the end of a function is an implied exit/ret (ptxas accepts it)', () => {
  test('an entry whose last instruction is a store', () => {
    const r = run32(`.visible .entry k(.param .u64 out)\n{${STORE}\n}\n`);
    expect(r.fault).toBeUndefined();
    expect(r.out).toEqual(expected);
  });

  test('a .func without ret returns to its caller, which goes on', () => {
    // f adds 1 to its argument and falls off its end; the caller stores f(tid) + 0 = tid + 1.
    const r = run32(`.func (.reg .b32 y) f(.reg .b32 x)\n{\n  add.u32 y, x, 1;\n}\n.visible .entry k(.param .u64 out)\n{
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  call (%r2), f, (%r1);
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}\n`);
    expect(r.fault).toBeUndefined();
    expect(r.out).toEqual(expected);
  });

  test('a label after the last instruction is a branch to the implied exit', () => {
    // odd lanes branch to the trailing label and store nothing: their words stay 0
    const r = run32(`.visible .entry k(.param .u64 out)\n{\n  .reg .pred %p<2>; .reg .b32 %r5;${STORE.replace('st.global.u32', `and.b32 %r5, %r1, 1;
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bra END;
  st.global.u32`)}\nEND:\n}\n`);
    expect(r.fault).toBeUndefined();
    expect(r.out).toEqual(expected.map((v, i) => (i % 2 ? 0 : v)));
  });
});

describe('declaration sizes are bounded before anything is allocated', () => {
  test('a register range of 2^64-1 is a located error, at once (2^64 itself wraps to 0 as ptxas reads it)', () => {
    const t0 = Date.now();
    const d = check('.visible .entry k()\n{\n  .reg .b64 %rd<18446744073709551615>;\n  ret;\n}\n');
    expect(d).toHaveLength(1);
    expect(d[0]).toMatch(/^6: register range <.*> is out of bounds \(at most 65536 registers\)$/);
    expect(Date.now() - t0).toBeLessThan(10_000); // generous: the old code never returned
  });

  test('arrays too large for their state space', () => {
    expect(check('.global .b8 big[1000000000000];\n')).toEqual([
      expect.stringMatching(/^4: \.global variable 'big' is too large \(1000000000000 bytes; at most 1073741824\)$/),
    ]);
    expect(check('.visible .entry k()\n{\n  .shared .b32 s[100000];\n  ret;\n}\n')).toEqual([
      expect.stringMatching(/^6: \.shared variable 's' is too large \(400000 bytes; at most 233472\)$/),
    ]);
  });
});

describe('instruction forms the ISA does not define are refused by check', () => {
  const one = (ins: string): string[] =>
    check(`.visible .entry k()\n{\n  .reg .b64 %rd<4>; .reg .pred %p<3>;\n  ${ins};\n  ret;\n}\n`);
  test('ex2 is defined on f32 and the half types only', () => {
    expect(one('ex2.lo.s64 %rd1, %rd2')).toEqual(['7: ex2 does not take type .s64 (expected one of .f32 .f16 .f16x2 .bf16 .bf16x2)']);
  });
  test('testp is defined on f32 and f64', () => {
    expect(one('testp.finite.s64 %p1, %rd2')).toEqual(['7: testp does not take type .s64 (expected one of .f32 .f64)']);
  });
  test('setp has one comparison type', () => {
    expect(one('setp.ge.s32.f16 %p1, %rd1, %rd2')).toEqual(['7: setp takes 1 type, found .s32.f16']);
  });
  test('.wide is defined on 16- and 32-bit integers (a fuzzer find: mul.wide.s64)', () => {
    expect(one('mul.wide.s64 %rd1, %rd2, %rd3')).toEqual(['7: mul.wide does not take type .s64 (expected one of .u16 .u32 .s16 .s32)']);
  });
  test('the defined forms pass', () => {
    expect(one('setp.ge.s64 %p1, %rd1, %rd2')).toEqual([]);
  });
  test('nvcc output (our samples and the corpus) passes the rules', () => {
    const files = [...ptxFilesUnder(join(ROOT, 'samples')), ...ptxFilesUnder(join(ROOT, 'test', 'corpus'))];
    expect(files.length).toBeGreaterThan(50);
    const refused = files.filter((f) => loadPtx(readFileSync(f, 'utf8'), f).diagnostics.length > 0);
    expect(refused).toEqual([]);
  });
});

test('a lane loop whose body names an operand its views lack is refused when generated, not when run', () => {
  // source view 'l' names the 64-bit halves alo/ahi; a body reading `a` would fail at run time
  const bad = lanes('i', ['l'], 'd = a | 0;');
  expect(() => tryLaneLoop(bad, {}, 0, 0, 0)).toThrow(GeneratedCodeError);
  // a use before initialisation (the set.u32.f16 crash) is caught the same way
  const tdz = lanes('i', ['i'], 'const q = r + 1; const r = a; d = q;');
  expect(() => tryLaneLoop(tdz, {}, 0, 0, 0)).toThrow(GeneratedCodeError);
  // and a good body passes
  expect(() => tryLaneLoop(lanes('i', ['i', 'i'], 'd = (a + b) | 0;'), {}, 0, 0, 0)).not.toThrow();
});

describe('launch files: paths that are not data files, sizes past the bounds', () => {
  const program = loadPtx(`${HEAD}.visible .entry k(.param .u64 out)\n{\n  ret;\n}\n`, 'k.ptx').program!;
  const dir = tempDir('ptxdbg-inputs-');
  mkdirSync(join(dir, 'adir'));
  const launchWith = (arg: Record<string, unknown>, extra: Record<string, unknown> = {}): string => {
    const p = join(dir, `l${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(p, JSON.stringify({ kernel: 'k', args: [{ name: 'out', type: 'u32', ...arg }], ...extra }));
    try {
      readLaunchFile(p, program);
    } catch (e) {
      if (e instanceof LaunchError) return e.message;
      throw e;
    }
    return 'accepted';
  };
  test('a directory as a buffer file', () => {
    expect(launchWith({ count: 4, file: 'adir' })).toMatch(/args\[0\] \(out\): "file": .*adir is a directory, not a file$/);
  });
  test('an endless device as a buffer file is read only as far as the buffer needs', () => {
    expect(launchWith({ count: 4, file: '/dev/zero' })).toMatch(/args\[0\] \(out\): "file": \/dev\/zero holds more than the 16 bytes expected$/);
  });
  test('a directory as the launch file', () => {
    expect(() => readLaunchFile(join(dir, 'adir'), program)).toThrow(/launch file: .*adir is a directory, not a file/);
  });
  test('absurd counts and shared sizes name their field', () => {
    expect(launchWith({ count: 1e15 })).toMatch(/"count": 1000000000000000 elements is more than 1073741824 bytes/);
    expect(launchWith({ count: 4 }, { sharedBytes: 1 << 30 })).toMatch(/"sharedBytes": 1073741824 is more than the 232448 bytes/);
  });
});

describe('debugger expressions nest to a bound, with a message', () => {
  const parseError = (src: string): string => {
    try {
      parseExpression(src, () => false);
    } catch (e) {
      if (e instanceof PrintError) return e.message;
      throw e;
    }
    return 'parsed';
  };
  const tooDeep = `Expression too deeply nested (more than ${MAX_NESTING} levels).`;
  test.each([
    ['10,000 parentheses', '('.repeat(10_000) + '1' + ')'.repeat(10_000)],
    ['20,000 dereferences', '*'.repeat(20_000) + 'p'],
    ['50,000 + terms', Array(50_000).fill('1').join(' + ')],
    ['20,000 subscripts', 'a' + '[0]'.repeat(20_000)],
    ['5,000 conditionals', '1 ? '.repeat(5_000) + '1' + ' : 1'.repeat(5_000)],
  ])('%s', (_name, src) => {
    expect(parseError(src)).toBe(tooDeep);
  });
  test('ordinary expressions are untouched', () => {
    expect(parseError('((a[1] + b) * -c) ? x.y : *p')).toBe('parsed');
  });
});

describe('files named on the command line that are not files', () => {
  const dir = tempDir('ptxdbg-notfiles-');
  test('a PTX "file" that is a directory or an endless device', () => {
    expect(() => readPtx(dir)).toThrow(/is a directory, not a file/);
    expect(() => readPtx('/dev/zero')).toThrow(/\/dev\/zero holds more than the \d+ bytes expected/);
  });
  test('a trace "file" that is a directory or a device is refused', () => {
    // a file that cannot be read as one is a usage error (exit 2), as everywhere
    expect(openReplay(dir)).toEqual({ error: expect.stringMatching(/is a directory, not a file/), code: 2 });
    expect(openReplay('/dev/zero')).toEqual({ error: expect.stringMatching(/holds more than/), code: 2 });
  });
});
