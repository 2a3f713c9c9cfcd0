/**
 * Thousands of mutated inputs (truncations, deleted/duplicated tokens, random bytes) from real
 * PTX: each must give diagnostics or a clean parse, never an exception, and quickly.
 */
import { readFileSync } from 'node:fs';
import { loadPtx } from '../../src/ptx/index.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { join } from 'node:path';
import { CONFORMANCE, ptxFilesUnder, ROOT } from '../helpers.js';

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

function mutate(src: string, r: () => number): string {
  const kind = Math.floor(r() * 4);
  const at = Math.floor(r() * src.length);
  switch (kind) {
    case 0: return src.slice(0, at);
    case 1: {
      const toks = src.split(/(\s+)/);
      const i = Math.floor(r() * toks.length);
      toks.splice(i, 1);
      return toks.join('');
    }
    case 2: {
      const toks = src.split(/(\s+)/);
      const i = Math.floor(r() * toks.length);
      toks.splice(i, 0, toks[Math.floor(r() * toks.length)] ?? '');
      return toks.join('');
    }
    default: {
      let s = src;
      for (let k = 0; k < 5; k++) {
        const p = Math.floor(r() * s.length);
        s = s.slice(0, p) + String.fromCharCode(Math.floor(r() * 256)) + s.slice(p + 1);
      }
      return s;
    }
  }
}

// Our own samples always exist; the shared conformance kernels add variety when present.
const files = [...ptxFilesUnder(join(ROOT, 'samples')), ...ptxFilesUnder(CONFORMANCE)]
  .filter((f) => f.endsWith('.G.ptx'))
  .filter((_, i) => i % 4 === 0)
  .slice(0, 8);
const small = files.map((f) => readFileSync(f, 'utf8')).map((s) => s.slice(0, 20000));

test('mutated PTX never throws and never hangs', () => {
  expect(small.length).toBeGreaterThan(0);
  const r = rng(12345);
  let withDiagnostics = 0;
  let slowest = 0;
  const N = 2400;
  for (let i = 0; i < N; i++) {
    const base = small[i % small.length]!;
    const input = mutate(base, r);
    const t0 = performance.now();
    const res = loadPtx(input, 'fuzz.ptx');
    formatDiagnostics('fuzz.ptx', input, res.diagnostics);
    slowest = Math.max(slowest, performance.now() - t0);
    if (res.diagnostics.length) withDiagnostics++;
    else expect(res.program).toBeDefined();
  }
  expect(withDiagnostics).toBeGreaterThan(N / 4);
  // a hang would blow the test timeout; this bound is generous for a loaded CI machine
  expect(slowest).toBeLessThan(1000);
});
