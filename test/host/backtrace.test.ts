/**
 * Host frames of `ptxdbg sanitize`: the runtime's encoding read back, names looked up in the
 * program's ELF symbol table (checked against nm's addresses), and compute-sanitizer's short
 * backtrace (no CUDA launch glue, nothing past main).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFrames, Symbolizer, type RawFrame } from '../../src/host/backtrace.js';
import { Fields } from '../../src/host/protocol.js';
import { missingTool, testIf } from '../helpers.js';

/** Frames as src/cudart/backtrace.c writes them. */
function encode(frames: RawFrame[]): Uint8Array {
  const parts: number[] = [];
  const u32 = (v: number): void => { for (let i = 0; i < 4; i++) parts.push((v >>> (8 * i)) & 255); };
  u32(frames.length);
  for (const f of frames) {
    for (let i = 0n; i < 8n; i++) parts.push(Number((f.offset >> (8n * i)) & 255n));
    const p = new TextEncoder().encode(f.path), s = new TextEncoder().encode(f.symbol);
    u32(p.length); u32(s.length);
    parts.push(...p, ...s);
  }
  return Uint8Array.from(parts);
}

test('frames read back as the runtime wrote them; a request without them has none', () => {
  const frames = [{ offset: 0x1465n, path: '/tmp/x/oob', symbol: '' }, { offset: 0x29d90n, path: '/lib/libc.so.6', symbol: '__libc_start_main' }];
  expect(readFrames(new Fields(encode(frames)))).toEqual(frames);
  expect(readFrames(new Fields(new Uint8Array(0)))).toEqual([]);
});

test('the short backtrace: nvcc\'s launch glue and the kernel\'s host stub left out, ending at main', () => {
  const at = (symbol: string, offset: number): RawFrame => ({ offset: BigInt(offset), path: '/nonexistent/app', symbol });
  const bt = new Symbolizer().backtrace([
    at('_Z25__device_stub__Z4fillPiiPii', 0x10), at('_Z4fillPii', 0x20), at('_ZL25__cudaLaunchKernel_helperP9CUkern_st4dim3S1_PPvmP11CUstream_st', 0x25),
    at('_Z13run_unalignedv', 0xacd4), at('main', 0xae61), at('__libc_start_call_main', 0x2000),
  ], '_Z4fillPii');
  expect(bt).toEqual([
    { symbol: '_Z13run_unalignedv', offset: 0xacd4n, module: 'app' },
    { symbol: 'main', offset: 0xae61n, module: 'app' },
  ]);
});

const why = missingTool('cc') ?? missingTool('nm');
testIf(why)('a return address is named from the program\'s .symtab (the addresses nm gives)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-bt-'));
  try {
    writeFileSync(join(dir, 'p.c'), 'int helper(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }\nint main(int c, char **v) { return helper(c) > 100; }\n');
    const cc = spawnSync('cc', ['-O0', '-fPIE', '-pie', '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8' });
    expect(cc.status).toBe(0);
    const nm = spawnSync('nm', [join(dir, 'p')], { encoding: 'utf8' }).stdout;
    const addr = (name: string): number => parseInt(new RegExp(`^([0-9a-f]+) T ${name}$`, 'm').exec(nm)![1]!, 16);
    const s = new Symbolizer();
    // a PIE loads from address 0 of the file: the offset from the load base is the address
    const frame = (offset: number): string | undefined => s.frame({ offset: BigInt(offset), path: join(dir, 'p'), symbol: '' }).symbol;
    expect(frame(addr('helper') + 5)).toBe('helper');
    expect(frame(addr('main') + 5)).toBe('main');
    // the return address just past a function's start belongs to the one before it
    expect(frame(addr('main'))).not.toBe('main');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
