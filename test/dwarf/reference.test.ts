/**
 * Decoded DIE trees of every `-G` PTX (shared conformance cases and the project's samples) against
 * `llvm-dwarfdump --debug-info` of `nvcc -G -cubin -arch=sm_80` of the same source
 * (test/dwarf/reference/<case>.txt, made by regen.sh). See llvmdump.ts for the normalisation of
 * ptxas's systematic rewrites. A PTX without a reference dump still has to decode cleanly.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE, ROOT } from '../helpers.js';
import { parsePtx } from '../../src/ptx/parser.js';
import { countDies, diffTrees, ourTrees, parseLlvmDump } from './llvmdump.js';
import { dwarfFromModule } from '../../src/ptx/dwarf.js';

const HERE = dirname(fileURLToPath(import.meta.url));

function cases(dir: string): { name: string; ptx: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'kernel.G.ptx')))
    .map((d) => ({ name: d.name, ptx: join(dir, d.name, 'kernel.G.ptx') }));
}

const all = [...cases(CONFORMANCE), ...cases(join(ROOT, 'samples'))];

describe('DIE trees match llvm-dwarfdump of the cubin', () => {
  it('finds -G PTX files', () => {
    expect(all.length).toBeGreaterThan(0);
  });

  for (const c of all) {
    const refPath = join(HERE, 'reference', `${c.name}.txt`);
    it(`${c.name}`, () => {
      const { module } = parsePtx(readFileSync(c.ptx, 'utf8'), c.ptx);
      const dwarf = dwarfFromModule(module);
      const ours = ourTrees(dwarf, module);
      expect(dwarf.warnings.list).toEqual([]);
      expect(ours.problems).toEqual([]);
      expect(countDies(ours.trees)).toBeGreaterThan(1);
      if (!existsSync(refPath)) {
        // a new case without a committed dump: decoded above, compared once regen.sh has made one
        process.stderr.write(`skipped: llvm-dwarfdump comparison of ${c.name}: no reference dump (run test/dwarf/reference/regen.sh ${c.name})\n`);
        return;
      }
      const ref = parseLlvmDump(readFileSync(refPath, 'utf8'));
      expect(countDies(ref)).toBeGreaterThan(1);
      expect(diffTrees(ref, ours.trees)).toEqual([]);
    });
  }
});
