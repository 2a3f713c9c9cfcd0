/**
 * Every -G sample and conformance kernel, stopped at a few positions: `info locals/args/
 * variables`, the variables tree and `print` of every visible variable (and its address) never
 * throw anything but PrintError, never hit an internal error, and nvcc's DWARF gives no warnings.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { MachineThreadView } from '../../src/engine/threadview.js';
import { DebugInfo, infoArgs, infoLocals, infoVariables, printExpression, PrintError, variableTree } from '../../src/engine/print/index.js';
import { CONFORMANCE, ROOT } from '../helpers.js';

function caseDirs(): string[] {
  const under = (d: string): string[] => (existsSync(d) ? readdirSync(d).sort().map((n) => join(d, n)) : []);
  return [...under(join(ROOT, 'samples')), ...under(CONFORMANCE)]
    .filter((d) => existsSync(join(d, 'launch.json')) && existsSync(join(d, 'kernel.G.ptx')));
}

test.each(caseDirs().map((d) => [d.split('/').slice(-2).join('/'), d]))('%s', (_name, dir) => {
  const path = join(dir, 'kernel.G.ptx');
  const loaded = loadPtx(readFileSync(path, 'utf8'), path);
  if (!loaded.program) return;
  const info = DebugInfo.fromProgram(loaded.program);
  const m = new Machine(loaded.program, readLaunchFile(join(dir, 'launch.json'), loaded.program), DEFAULT_RUN_OPTIONS);
  const problems: string[] = [];
  for (const step of [5, 40, 1500]) {
    m.advance(step);
    for (const cta of m.resident.slice(0, 2)) {
      for (const w of cta.warps.slice(0, 2)) {
        for (const level of [0, 1]) {
          const v = new MachineThreadView(m, w, 0, level);
          const texts = [infoLocals(info, v), infoArgs(info, v), infoVariables(info, v), JSON.stringify(variableTree(info, v, 8))];
          for (const t of texts) if (/internal error/.test(t)) problems.push(`${v.function}:${v.pc}: ${t.slice(0, 200)}`);
          for (const x of info.visible(v.function, v.pc)) {
            for (const e of [x.name, `&${x.name}`]) {
              try {
                printExpression(info, v, e);
              } catch (err) {
                if (!(err instanceof PrintError)) throw err;
                if (/internal error/.test(err.message)) problems.push(`${v.function}:${v.pc} print ${e}: ${err.message}`);
              }
            }
          }
        }
      }
    }
  }
  expect(problems).toEqual([]);
  expect(info.warnings).toEqual([]);
});
