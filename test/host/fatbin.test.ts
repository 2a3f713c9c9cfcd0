/**
 * The fatbinary container and its compressions, from hand-built bytes (format as nvcc writes it:
 * 16-byte blob header, 64+-byte entry headers) and, where nvcc is installed, from a real program
 * compared with `nvcc -ptx` of the same source.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElfError, elfSections } from '../../src/host/elf.js';
import { FatbinError, lzDecode, parseFatbin } from '../../src/host/fatbin.js';
import { missingTool, ROOT, testIf } from '../helpers.js';

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

test('the LZ block format: literals, then a back reference that may overlap what it writes', () => {
  // token 0x44: 4 literals "abcd", match length 4+4 = 8 at offset 4 -> "abcdabcdabcd"
  const out = lzDecode(Uint8Array.from([0x44, ...ascii('abcd'), 4, 0]), 12);
  expect(new TextDecoder().decode(out)).toBe('abcdabcdabcd');
  // a literal count of 15 + 3 continues in the next byte; a trailing token with literals only ends the stream
  const lits = 'x'.repeat(18);
  expect(new TextDecoder().decode(lzDecode(Uint8Array.from([0xf0, 3, ...ascii(lits)]), 18))).toBe(lits);
  expect(() => lzDecode(Uint8Array.from([0x14, ...ascii('a'), 9, 0]), 20)).toThrow(/match offset 9 before the start of the output/);
});

/** A blob with the given entries: [kind, flags, payload, decompressedSize]. */
function blob(entries: [number, bigint, Uint8Array, number][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [kind, flags, payload, dsz] of entries) {
    const h = new DataView(new ArrayBuffer(64));
    h.setUint16(0, kind, true);
    h.setUint32(4, 64, true);
    h.setBigUint64(8, BigInt(payload.length), true);
    h.setUint32(16, flags & 0x2000n ? payload.length : 0, true);
    h.setUint16(24, 0, true); h.setUint16(26, 9, true); // version 9.0
    h.setUint32(28, 80, true);
    h.setBigUint64(40, flags, true);
    h.setBigUint64(56, BigInt(dsz), true);
    parts.push(new Uint8Array(h.buffer), payload);
  }
  const body = parts.reduce((n, p) => n + p.length, 0);
  const head = new DataView(new ArrayBuffer(16));
  head.setUint32(0, 0xba55ed50, true); head.setUint16(4, 1, true); head.setUint16(6, 16, true); head.setBigUint64(8, BigInt(body), true);
  const out = new Uint8Array(16 + body);
  out.set(new Uint8Array(head.buffer), 0);
  let o = 16;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

test('a container of a plain PTX entry and an LZ-compressed one', () => {
  const ptx = Uint8Array.from([...ascii('.version 9.0\n'), 0, 0]);
  const lz = Uint8Array.from([0x44, ...ascii('abcd'), 4, 0]);
  const entries = parseFatbin(blob([[1, 0x11n, ptx, 0], [2, 0x2011n, lz, 12]]));
  expect(entries.map((e) => [e.kind, e.arch, e.compression, new TextDecoder().decode(e.data)])).toEqual([
    ['ptx', 80, 'none', '.version 9.0\n'], // trailing NULs removed
    ['elf', 80, 'lz', 'abcdabcdabcd'],
  ]);
  expect(entries[0]!.version).toEqual([9, 0]);
});

test('malformed containers are located errors', () => {
  const good = blob([[1, 0n, Uint8Array.from(ascii('x')), 0]]);
  expect(() => parseFatbin(good.subarray(0, good.length - 1))).toThrow(FatbinError);
  const bad = good.slice();
  bad[0] = 0x12;
  expect(() => parseFatbin(bad)).toThrow(/bad magic 0xba55ed12 at offset 0x0/);
  expect(() => elfSections(Uint8Array.from(ascii('not an elf at all, 64 bytes long..............................')))).toThrow(ElfError);
});

testIf(missingTool('nvcc'))('the PTX nvcc embeds (zstd-compressed by CUDA 13) is what nvcc -ptx writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-fatbin-'));
  try {
    const src = join(dir, 'app.cu');
    writeFileSync(src, '__global__ void add(int* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += i; }\nint main() { int* d; cudaMalloc(&d, 256); add<<<1, 32>>>(d, 32); return 0; }\n');
    expect(spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', 'app.cu', '-o', 'app'], { cwd: dir }).status).toBe(0);
    expect(spawnSync('nvcc', ['-ptx', '-arch=sm_80', 'app.cu', '-o', 'ref.ptx'], { cwd: dir }).status).toBe(0);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli.js'), 'extract', 'app', '-o', 'out'], { cwd: dir, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/PTX \d+\.\d+ for compute_80, \d+ bytes.* -> out\/app\.1\.sm_80\.ptx/);
    // the same text up to layout (the embedded copy drops comments and indentation)
    const norm = (s: string): string => s.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l && !l.startsWith('//')).join('\n');
    expect(norm(readFileSync(join(dir, 'out', 'app.1.sm_80.ptx'), 'utf8'))).toBe(norm(readFileSync(join(dir, 'ref.ptx'), 'utf8')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
