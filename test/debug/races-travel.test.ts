/**
 * Races linked to time travel: `race N` / `race N 2` put the reported thread in focus at the
 * reported step, where it is about to execute the reported line.
 */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { sessionRaces } from '../../src/engine/races.js';
import { openSession } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

describe.each(['race_shared_raw', 'race_shared_waw', 'race_global_cross_block', 'race_intra_warp'])('%s', (name) => {
  test('each race access can be travelled to', () => {
    const dir = join(ROOT, 'samples', name);
    const s = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
    const rep = sessionRaces(s);
    expect(rep.races.length).toBeGreaterThan(0);
    rep.races.slice(0, 3).forEach((r, i) => {
      r.accesses.forEach((a, k) => {
        const out = consoleOf(engineOf(s)).execute(`race ${i + 1} ${k + 1}`);
        expect(out.error).toBe(false);
        const w = s.where();
        expect(s.position()).toBe(a.step);
        expect(w.block).toEqual(a.block);
        expect(w.thread).toEqual(a.thread);
        expect(w.line).toBe(a.line);
        expect(w.state).toBe('active');
      });
    });
    // the timeline shows both accesses of every race
    const marks = s.marks().filter((m) => m.kind === 'race').map((m) => m.at.step);
    for (const r of rep.races) for (const a of r.accesses) expect(marks).toContain(a.step);
    expect(consoleOf(engineOf(s)).execute(`race ${rep.races.length + 1}`).error).toBe(true);
  });
});
