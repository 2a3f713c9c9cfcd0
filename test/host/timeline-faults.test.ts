/**
 * Faults across a program's launches (issue #25): samples/apps/timeline/faulty.cu, whose second
 * launch (gather<<<1, 8>>>) writes out of bounds in thread 5 (the host's idx[5] is 1 << 24, past
 * every allocation), run as `ptxdbg debug --batch -- ./faulty`. Launch numbers, kernels, lines
 * and the faulting thread come from the .cu source, never from ptxdbg's output.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testIf } from '../helpers.js';
import { buildTimeline, CLI, lineIn, whyNoTimeline } from './timeline-common.js';

const run = testIf(whyNoTimeline);

let bin: string;
beforeAll(async () => { bin = await buildTimeline('ptxdbg-timeline-faults-', 'faulty'); }, 600_000);

/** The 1-based line of faulty.cu holding `text` (exactly one). */
const lineOf = (text: string): number => lineIn('faulty.cu', text);

function debug(commands: readonly string[], target: readonly string[] = ['debug', '--batch']): { out: string; err: string; status: number | null } {
  const after = target[0] === 'debug' ? ['--', './faulty'] : [];
  const r = spawnSync(process.execPath, [CLI, ...target, ...commands.flatMap((c) => ['--ex', c]), ...after], { cwd: bin, encoding: 'utf8', timeout: 120_000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

// faulty.cu: fill<<<1, 8>>> (launch 1), gather<<<1, 8>>> (launch 2); the host stops at gather's error
const STORE = (): number => lineOf('a[idx[i]] = i;');
const site = (kernel: string): string => `faulty.cu:${lineOf(`${kernel}<<<1, 8>>>(`)} in main`;

describe('a fault in launch 2 of a program', () => {
  run('info cuda launches names the fault on its launch; continue from launch 1 stops on it, in launch 2, at the faulting thread', () => {
    const { out, status } = debug(['info cuda launches', 'continue', 'print i', 'print idx[i]', 'info cuda launches']);
    expect(status).toBe(0);
    const table = (from: number): string[] => out.split('\n').slice(from).filter((l) => /^[* ]\s+\d+\s/.test(l)).slice(0, 2);
    const first = out.split('\n').findIndex((l) => l.includes('Launch') && l.includes('Fault'));
    expect(first).toBeGreaterThanOrEqual(0);
    const [r1, r2] = table(first);
    // launch 1 (fill) is right; launch 2 (gather) faults in thread 5 on its store
    expect(r1).toMatch(new RegExp(`^\\*\\s+1\\s+fill\\s.*${site('fill')}\\s+-$`));
    expect(r2).toMatch(new RegExp(`^\\s+2\\s+gather\\s.*${site('gather')}\\s+out-of-bounds global write .*at faulty\\.cu:${STORE()}, block \\(0,0,0\\) thread \\(5,0,0\\)$`));
    // continue: no breakpoint anywhere, yet it stops at the fault, in launch 2
    expect(out).toContain(`[launch 2 gather<<<(1,1,1),(8,1,1)>>> at ${site('gather')}]`);
    expect(out).toMatch(/block \(0,0,0\) thread \(5,0,0\) warp 0 lane 5/);
    expect(out).toContain(`gather at faulty.cu:${STORE()}`);
    // the faulting thread's values: i = 5, idx[5] = 1 << 24
    expect(out).toContain('$1 = 5');
    expect(out).toContain(`$2 = ${1 << 24}`);
    // and the launch in focus is now 2
    const again = out.split('\n').lastIndexOf(out.split('\n').filter((l) => l.includes('Launch') && l.includes('Fault')).pop()!);
    expect(table(again)[1]).toMatch(/^\*\s+2\s+gather/);
  }, 180_000);

  run('travel works on it: reverse-continue leaves the fault, continue comes back to it, a second continue goes to the program\'s end', () => {
    const { out, status } = debug(['continue', 'reverse-continue', 'continue', 'continue']);
    expect(status).toBe(0);
    const launches = out.split('\n').filter((l) => l.startsWith('[launch '));
    expect(launches).toEqual([
      `[launch 2 gather<<<(1,1,1),(8,1,1)>>> at ${site('gather')}]`,
      `[launch 1 fill<<<(1,1,1),(8,1,1)>>> at ${site('fill')}]`,
      `[launch 2 gather<<<(1,1,1),(8,1,1)>>> at ${site('gather')}]`,
      `[launch 2 gather<<<(1,1,1),(8,1,1)>>> at ${site('gather')}]`,
    ]);
    // the program made 2 launches and exited with 1 (gather failed)
    expect(out).toMatch(/The program exited with code 1 after 2 launches/);
  }, 180_000);
});

describe('capture DIR inside a program session', () => {
  run('writes the launch in focus as the bundle ptxdbg capture writes; the reopened bundle shows the same values', () => {
    // fill<<<1, 8>>> stores a[i] = 10 i: at its end a[0..7] = 0, 10, ..., 70
    const want = `{${Array.from({ length: 8 }, (_, i) => 10 * i).join(', ')}}`;
    const { out, status } = debug(['launch 1', 'capture cap', 'print a[0]@8', 'goto launch 1 step 18', 'print a[0]@8']);
    expect(status).toBe(0);
    expect(out).toContain(`Launch 1 written to ${join('cap', '0001-fill')}`);
    // at its start a[] is what cudaMalloc gave (ptxdbg's device memory starts zeroed); at its end, fill's values
    expect(out).toContain(`$1 = {${Array(8).fill(0).join(', ')}}`);
    expect(out).toContain(`$2 = ${want}`);
    for (const f of ['kernel.ptx', 'launch.json', 'stdout.txt']) expect(existsSync(join(bin, 'cap', '0001-fill', f))).toBe(true);
    const again = debug(['print a[0]@8', 'goto 18', 'print a[0]@8'], [join('cap', '0001-fill') + '/', '--batch']);
    expect(again.status).toBe(0);
    expect(again.out).toContain(`$1 = {${Array(8).fill(0).join(', ')}}`);
    expect(again.out).toContain(`$2 = ${want}`);
    // outside a program session it says where capture works
    const single = debug(['capture cap2'], [join('cap', '0001-fill') + '/', '--batch']);
    expect(single.out + single.err).toMatch(/capture DIR works in a whole-program session/);
  }, 180_000);

  run('into a place it cannot write: one line naming the place and why, and the session goes on', () => {
    // a regular file where the bundle's directory would be made: mkdir fails with ENOTDIR
    writeFileSync(join(bin, 'not-a-dir'), '');
    const { out, status } = debug(['launch 1', 'capture not-a-dir', 'print 6 * 7']);
    expect(out).toMatch(/^capture not-a-dir: ENOTDIR: not a directory, mkdir .*not-a-dir\/0001-fill/m);
    expect(out).toContain('$1 = 42');
    // a failed command in batch mode exits 1 (README's exit codes), not 70
    expect(status).toBe(1);
  }, 180_000);
});
