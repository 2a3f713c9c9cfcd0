/** Launch limits the kernel declares are enforced before it runs (a LaunchError: exit 2). */
import { LaunchError } from '../../src/exec/launch.js';
import { checkLaunchLimits } from '../../src/exec/limits.js';
import { loadPtx } from '../../src/ptx/index.js';

function kernel(header: string, name = 'k') {
  const src = `.version 8.0\n.target sm_80\n.address_size 64\n${header}\n{\n  ret;\n}\n`;
  const l = loadPtx(src, 'l.ptx');
  if (!l.program) throw new Error(l.diagnostics.map((d) => d.message).join('\n'));
  return l.program.functions.get(name)!;
}

function verdict(fn: ReturnType<typeof kernel>, block: [number, number, number]): string {
  try {
    checkLaunchLimits(fn, block);
    return 'ok';
  } catch (e) {
    if (e instanceof LaunchError) return e.message;
    throw e;
  }
}

test('.maxntid bounds the thread count of the block', () => {
  const fn = kernel('.visible .entry k() .maxntid 16, 8, 1');
  expect(verdict(fn, [128, 1, 1])).toBe('ok'); // 16*8 = 128 threads at most
  expect(verdict(fn, [8, 8, 2])).toBe('ok');
  expect(verdict(fn, [129, 1, 1])).toContain('at most 128 threads per block (.maxntid 16, 8, 1)');
});

test('.reqntid demands the exact shape, missing dimensions being 1', () => {
  const fn = kernel('.visible .entry k() .reqntid 32, 4');
  expect(verdict(fn, [32, 4, 1])).toBe('ok');
  expect(verdict(fn, [128, 1, 1])).toContain('exactly 32x4x1 threads (.reqntid 32, 4), the launch gives 128x1x1');
});

test('.maxnreg: registers per block beyond the 65536 of an sm_80 SM are refused', () => {
  const fn = kernel('.visible .entry k() .maxnreg 255');
  // 256 threads x 255 registers = 65280 <= 65536; 288 threads (9 warps) x 255 = 73440 > 65536
  expect(verdict(fn, [256, 1, 1])).toBe('ok');
  expect(verdict(fn, [288, 1, 1])).toContain('too many resources requested for launch');
});

test('.minnctapersm: the blocks asked to be resident must fit in an sm_80 SM', () => {
  const fn = kernel('.visible .entry k() .minnctapersm 4');
  // 4 x 512 = 2048 threads fit exactly; 4 x 544 (17 warps) = 2176 do not
  expect(verdict(fn, [512, 1, 1])).toBe('ok');
  expect(verdict(fn, [544, 1, 1])).toContain('(.minnctapersm 4)');
});

test('ISA 1.1 .entry name[NTID.1][NTID.0] is a per-dimension maximum', () => {
  const src = '.version 1.1\n.target sm_10\n.entry filter[16][8]\n{\n  exit;\n}\n';
  const fn = loadPtx(src, 'f.ptx').program!.functions.get('filter')!;
  expect(verdict(fn, [8, 16, 1])).toBe('ok'); // NTID.0 = 8, NTID.1 = 16
  expect(verdict(fn, [4, 4, 1])).toBe('ok');
  expect(verdict(fn, [16, 8, 1])).toContain('at most 8x16 threads');
  expect(verdict(fn, [8, 16, 2])).toContain('at most 8x16 threads');
});
