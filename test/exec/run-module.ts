/** Runs a small PTX module's kernel `k` with one u32 output buffer (tests of src/exec). */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions, type RunResult } from '../../src/exec/machine.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';

export const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n';

/** Loads `src` (after HEAD), runs kernel k on `threads` threads with one u32 output buffer. */
export function runModule(src: string, words: number, threads = 1, opts: RunOptions = DEFAULT_RUN_OPTIONS): { out: number[]; res: RunResult; m: Machine } {
  const text = HEAD + src;
  const r = loadPtx(text, 'k.ptx');
  if (!r.program) throw new Error(formatDiagnostics('k.ptx', text, r.diagnostics));
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1], args: [{ name: 'out', type: 'u32', count: words }] }, r.program, '.');
  const m = new Machine(r.program, launch, opts);
  const res = m.run();
  const base = m.buffers[0]!.alloc.base;
  return { out: [...new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * words).buffer)], res, m };
}

