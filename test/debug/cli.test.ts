/**
 * The debugger's command line: batch mode (--batch, -x, --ex), record and replay, and the
 * errors for bad trace files. Runs the built CLI (CI builds before testing).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { writeTraceFile } from '../../src/trace/file.js';
import { ROOT } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const SAXPY = join(ROOT, 'samples', 'saxpy', 'kernel.G.ptx');

function cli(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-cli-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('batch mode runs --ex commands in order and prints gdb-like text', () => {
  const r = cli(SAXPY, '--batch', '--ex', 'break kernel.cu:14', '--ex', 'run', '--ex', 'print i', '--ex', 'cuda thread (5,0,0)', '--ex', 'print threadIdx.x');
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/Breakpoint 1 at .*line 14/);
  expect(r.out).toMatch(/Breakpoint 1, block \(0,0,0\) thread \(0,0,0\)/);
  expect(r.out).toMatch(/\$1 = 0\n/);
  expect(r.out).toMatch(/\$2 = 5\n/);
});

test('-x reads commands from a file; a failing command makes the exit code 1', () => {
  const cmds = join(tmp, 'cmds.txt');
  writeFileSync(cmds, '# comment\nbreak axpy\ncontinue\ninfo args\nbogus-command\n');
  const r = cli(SAXPY, '--batch', '-x', cmds);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/a = 2\.5/);
  expect(r.out).toMatch(/Undefined command: "bogus-command"/);
});

test('bad PTX in batch mode: located diagnostic, exit 1', () => {
  const bad = join(tmp, 'bad.ptx');
  writeFileSync(bad, '.version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n');
  const r = cli(bad, '--batch', '--ex', 'next');
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/bad\.ptx:6:\d+/);
});

test('record then replay shows the same states; the file is self-contained', () => {
  const trace = join(tmp, 'run.ptxtrace');
  const rec = cli('record', SAXPY, '-o', trace);
  expect(rec.code).toBe(0);
  expect(rec.err).toMatch(/recorded \d+ warp-steps/);
  const script = ['goto 40', 'info registers', 'cuda block (1,0,0) thread (7,0,0)', 'next', 'next', 'print i'];
  const direct = cli(SAXPY, '--batch', ...script.flatMap((c) => ['--ex', c]));
  const replay = cli('replay', trace, '--batch', ...script.flatMap((c) => ['--ex', c]));
  expect(replay.code).toBe(0);
  expect(replay.out).toBe(direct.out);
  expect(replay.out).toMatch(/\$1 = 135\n/);
});

describe('bad trace files give a clear error, never a wrong state', () => {
  let good: Buffer;
  beforeAll(() => {
    const p = join(tmp, 'good.ptxtrace');
    expect(cli('record', SAXPY, '-o', p).code).toBe(0);
    good = readFileSync(p);
  });

  test.each([
    ['truncated', (b: Buffer) => b.subarray(0, b.length - 100), /checksum mismatch|truncated/],
    ['a flipped byte', (b: Buffer) => { const c = Buffer.from(b); c[c.length >> 1] ^= 0x40; return c; }, /checksum mismatch/],
    ['wrong magic', (b: Buffer) => { const c = Buffer.from(b); c.write('NOTATRCE', 0, 'latin1'); return c; }, /wrong magic/],
    ['empty', () => Buffer.alloc(0), /too short/],
    ['a future version', (b: Buffer) => { const c = Buffer.from(b); c.writeUInt32LE(99, 8); return c; }, /version 99/],
  ])('%s', (_name, mutate, message) => {
    const p = join(tmp, 'bad.ptxtrace');
    writeFileSync(p, mutate(good));
    const r = cli('replay', p, '--batch', '--ex', 'status');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });

  test('a file whose log does not match re-execution (another build) is refused', () => {
    const s = openSession({ ptxPath: SAXPY });
    const p = join(tmp, 'mismatch.ptxtrace');
    writeTraceFile(p, s.trace, SAXPY, s.ptxText, s.launch, s.options);
    // pretend a different mask was recorded at step 0: flip a bit of the log's second word in the
    // file and seal it again (magic, version, header length, header JSON, ptx, launch, then the log)
    const bytes = readFileSync(p);
    const hlen = bytes.readUInt32LE(12);
    const header = JSON.parse(bytes.subarray(16, 16 + hlen).toString('utf8')) as { sections: { ptx: number; launch: number } };
    const logAt = 16 + hlen + header.sections.ptx + header.sections.launch;
    bytes[logAt + 4] ^= 1;
    createHash('sha256').update(bytes.subarray(0, bytes.length - 32)).digest().copy(bytes, bytes.length - 32);
    writeFileSync(p, bytes);
    const r = cli('replay', p, '--batch', '--ex', 'status');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/does not match its re-execution \(execution differs at step 0\)/);
  });

  test('a missing file', () => {
    const r = cli('replay', join(tmp, 'nope.ptxtrace'), '--batch');
    expect(r.code).toBe(2); // a file that cannot be read: 2, as in every subcommand
    expect(r.err).toMatch(/cannot read .*: no such file/);
  });
});
