/**
 * brkpt (PTX ISA: "Breakpoint. Suspends execution."): the debugger's continue stops where a thread
 * executes one, as cuda-gdb does (SIGTRAP), and continue again passes it; a guarded `@%p brkpt`
 * stops only for lanes whose guard holds. `run`, with no debugger, goes on past it (exit 0, the
 * kernel's results complete) and says where the first one was and how many ran.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/api.js';
import { ROOT } from '../helpers.js';

const PTX = `.version 8.4
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  brkpt;
  setp.eq.u32 %p1, %r1, 37;
  @%p1 brkpt;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.u32 %r2, %r1, 100;
  st.global.u32 [%rd3], %r2;
  ret;
}
`;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-brkpt-'));
  writeFileSync(join(tmp, 'k.ptx'), PTX);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('continue stops at each brkpt a thread executes and passes it on the next continue', () => {
  const e = Engine.open({ ptxPath: join(tmp, 'k.ptx'), block: '64', arg: ['u32[64]'] });
  const stops: string[] = [];
  for (let i = 0; i < 6; i++) {
    const s = e.continue({ direction: 'forward' });
    if (s.reason !== 'breakpoint') { expect(s.reason).toBe('end'); break; }
    expect(s.message).toMatch(/^Program received signal SIGTRAP, Trace\/breakpoint trap \(brkpt\)/);
    expect(s.hit).toEqual({ kind: 'breakpoint', id: 0 });
    stops.push(`${s.thread.thread.join(',')}@${e.where().pc}`);
  }
  // two warps each reach the plain brkpt (pc 2; the lowest lane is the hitter) and only thread 37's
  // guard holds at the guarded one (pc 4, warp 1): three stops, then the end
  expect(stops.sort()).toEqual(['0,0,0@2', '32,0,0@2', '37,0,0@4']);
  // and backward, reverse-continue finds them again
  let back = 0;
  for (let s = e.continue({ direction: 'backward' }); s.reason === 'breakpoint'; s = e.continue({ direction: 'backward' })) back++;
  expect(back).toBe(3);
});

test('run goes on past brkpt, says where the first was and how many ran, exit 0', () => {
  const cli = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
  const r = spawnSync(process.execPath, [cli, 'run', 'k.ptx', '--block', '64', '--arg', 'u32[64]', '--out', 'o'], { encoding: 'utf8', cwd: tmp, timeout: 120_000 });
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/ptxdbg: brkpt: brkpt instruction executed\n {2}in block \(0,0,0\) thread \(0,0,0\)/);
  expect(r.stderr).toMatch(/executed 3 times; a debugger stops at brkpt/);
  const bytes = readFileSync(join(tmp, 'o', 'arg0.bin'));
  const out = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readUInt32LE(4 * i));
  expect(out).toEqual(Array.from({ length: 64 }, (_, i) => i + 100));
});
