/**
 * `info races` in a whole program (issue #25): every recorded launch's race report under its
 * launch, each race numbered `L.N` (race N of launch L), which `race L.N` travels to.
 */
import { formatReport } from '../../races/index.js';
import type { Engine } from '../api.js';

export function programRacesText(e: Engine): string {
  const all = e.programRaces();
  const out: string[] = [];
  let races = 0, launches = 0;
  for (const { launch: l, report } of all) {
    const name = `Launch ${l.index} ${l.kernel}<<<(${l.grid.join(',')}),(${l.block.join(',')})>>>${l.site ? ` at ${l.site}` : ''}`;
    if (!report) { out.push(`${name}: not recorded (not checked)`); continue; }
    if (!report.races.length && !report.benign.length && !report.barrierErrors.length) { out.push(`${name}: no races or barrier errors`); continue; }
    races += report.races.length;
    if (report.races.length) launches++;
    out.push(`${name}:`, ...formatReport(report).trimEnd().split('\n').map((x) => x.replace(/^race (\d+):/, `race ${l.index}.$1:`)));
  }
  const n = (k: number, w: string, ws: string): string => `${k} ${k === 1 ? w : ws}`;
  out.push(races
    ? `${n(races, 'race', 'races')} in ${n(launches, 'launch', 'launches')} of ${all.length}. Use "race L.N" to travel to the first access of race N of launch L, "race L.N 2" to the second.`
    : `No races in the ${all.length} launch${all.length === 1 ? '' : 'es'} of the program.`);
  return out.join('\n');
}
