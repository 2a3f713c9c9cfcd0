/**
 * A program that dies in the middle of a launch (test/host/dies.cu: killed from outside, _exit
 * from another thread, a segfault in another thread) ends its launch: ptxdbg stops the kernel
 * (which would otherwise spin to the step limit, minutes of CPU), says so, exits with the
 * program's status as a shell reports it (128 + the signal's number), and leaves no process and
 * no temporary file behind; a program whose ptxdbg goes away is told so, and what its calls
 * return. No timed assertion: the kernel spins forever, so ptxdbg ending at
 * all (inside jest's timeout) is the check.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { missingTool, ROOT, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const run = testIf(missingTool('nvcc') ?? missingTool('cc') ?? (existsSync(RUNTIME) ? null : `the ptxdbg runtime is not built (${RUNTIME})`));

let bin = '';
beforeAll(() => {
  if (missingTool('nvcc') || !existsSync(RUNTIME)) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-dies-'));
  const r = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-o', join(bin, 'dies'), join(ROOT, 'test', 'host', 'dies.cu')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nvcc failed: ${r.stderr}`);
}, 300_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });

interface Ended { code: number | null; out: string; err: string; pid: number; temp: string[] }

/** ptxdbg exec -- ./dies HOW with a temporary directory of its own; `kill` the program once it has started its launch. */
function execDies(how: string, kill?: NodeJS.Signals, flags: string[] = [], blocks?: number): Promise<Ended> {
  const temp = mkdtempSync(join(tmpdir(), 'ptxdbg-dies-tmp-'));
  const p = spawn(process.execPath, [CLI, 'exec', ...flags, '--', './dies', how, ...(blocks ? [String(blocks)] : [])], { cwd: bin, env: { ...process.env, TMPDIR: temp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let pid = 0;
  p.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    const m = /^pid (\d+)$/m.exec(out);
    if (m && !pid) {
      pid = Number(m[1]);
      // the launch follows the line at once; killing a little later finds it running
      if (kill) setTimeout(() => process.kill(pid, kill), 500);
    }
  });
  p.stderr.on('data', (b: Buffer) => { err += b.toString(); });
  return new Promise((done) => {
    p.on('close', (code) => {
      const left = readdirSync(temp);
      rmSync(temp, { recursive: true, force: true });
      done({ code, out, err, pid, temp: left });
    });
  });
}

const launchStopped = /ptxdbg: launch 1 spin<<<\(1,1,1\),\(32,1,1\)>>>: stopped after \d+ warp-steps: the program has ended, no one waits for this launch/;

run('killed from outside mid-launch: the launch stops, ptxdbg reports SIGKILL and exits 128+9, nothing is left', async () => {
  const r = await execDies('wait', 'SIGKILL');
  expect(r.err).toMatch(launchStopped);
  expect(r.err).toContain('ptxdbg: ./dies was killed by SIGKILL');
  expect(r.code).toBe(128 + constants.signals.SIGKILL);
  expect(r.out).not.toContain('the launch returned');
  expect(existsSync(`/proc/${r.pid}`)).toBe(false);
  expect(r.temp).toEqual([]);
}, 120_000);

run('killed mid-launch under the race checker (exec --races): the checked launch stops too', async () => {
  const r = await execDies('wait', 'SIGKILL', ['--races']);
  expect(r.err).toMatch(launchStopped);
  expect(r.code).toBe(128 + constants.signals.SIGKILL);
  expect(existsSync(`/proc/${r.pid}`)).toBe(false);
  expect(r.temp).toEqual([]);
}, 120_000);

run('killed mid-launch on worker threads (exec --workers 2, 4 spinning blocks): every thread stops', async () => {
  const r = await execDies('wait', 'SIGKILL', ['--workers', '2'], 4);
  expect(r.err).toMatch(/ptxdbg: launch 1 spin<<<\(4,1,1\),\(32,1,1\)>>>: stopped after \d+ warp-steps: the program has ended, no one waits for this launch/);
  expect(r.code).toBe(128 + constants.signals.SIGKILL);
  expect(existsSync(`/proc/${r.pid}`)).toBe(false);
  expect(r.temp).toEqual([]);
}, 120_000);

run('_exit(3) from another thread mid-launch: the launch stops and ptxdbg exits 3', async () => {
  const r = await execDies('exit');
  expect(r.err).toMatch(launchStopped);
  expect(r.code).toBe(3);
  expect(existsSync(`/proc/${r.pid}`)).toBe(false);
  expect(r.temp).toEqual([]);
}, 120_000);

run('a segfault in another thread mid-launch: the launch stops, ptxdbg reports SIGSEGV and exits 128+11', async () => {
  const r = await execDies('segv');
  expect(r.err).toMatch(launchStopped);
  expect(r.err).toContain('ptxdbg: ./dies was killed by SIGSEGV');
  expect(r.code).toBe(128 + constants.signals.SIGSEGV);
  expect(existsSync(`/proc/${r.pid}`)).toBe(false);
  expect(r.temp).toEqual([]);
}, 120_000);

run('ptxdbg gone after the hello: the runtime says the connection was lost and what every call returns, without suggesting ptxdbg exec', async () => {
  // this test plays ptxdbg: it answers the runtime's hello (protocol 1), then closes the socket
  const p = spawn(join(bin, 'dies'), ['wait'], {
    cwd: bin, stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, PTXDBG_FD: '3', LD_LIBRARY_PATH: [dirname(RUNTIME), process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':') },
  });
  const socket = p.stdio[3] as Duplex;
  let got = 0;
  socket.on('data', (b: Buffer) => {
    got += b.length;
    if (got < 20) return; // the hello: a 16-byte header and the runtime's version
    const hello = Buffer.alloc(20);
    hello.writeBigUInt64LE(4n, 8);
    hello.writeUInt32LE(1, 16);
    socket.end(hello, () => socket.destroy());
  });
  socket.on('error', () => { /* the program may write after the close */ });
  let out = '';
  let err = '';
  p.stdout!.on('data', (b: Buffer) => { out += b.toString(); });
  p.stderr!.on('data', (b: Buffer) => { err += b.toString(); });
  const code = await new Promise<number | null>((done) => p.on('close', done));
  expect(code).toBe(0);
  expect(out).toContain('the launch returned cudaErrorDevicesUnavailable');
  expect(err.match(/the connection to ptxdbg was lost/g)).toHaveLength(1);
  expect(err).toContain('every later one return cudaErrorDevicesUnavailable (46)');
  expect(err).not.toContain('ptxdbg exec');
}, 120_000);
