/**
 * Writes through the engine's typed API (issue #27): a write forks a what-if timeline and moves
 * into it at the same position; breakpoints and watchpoints are one set over every timeline; the
 * original recording never changes; errors by code. Fixture test/fixtures/whatif (kernel.cu:
 * out[t] = tile[0] + ... + tile[limit-1] + tile[t], tile[k] = k + 1, limit = n = 4).
 */
import { join } from 'node:path';
import { Engine, consoleState } from '../../src/engine/index.js';
import { EngineError, type ErrorCode } from '../../src/engine/errors.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const DIR = join(ROOT, 'test', 'fixtures', 'whatif');
const open = (): Engine => Engine.open({ ptxPath: join(DIR, 'kernel.G.ptx') });

function codeOf(f: () => unknown): ErrorCode | undefined {
  try { f(); } catch (e) { if (e instanceof EngineError) return e.code; throw e; }
  return undefined;
}

/** At kernel.cu:11 (limit = n done), thread (0,0,0) in focus. */
function atLine11(e: Engine): void {
  e.setBreakpoints('kernel.cu', [{ line: 11 }]);
  e.continue({ direction: 'forward' });
  e.setBreakpoints('kernel.cu', []);
}

describe('what-if timelines through the engine API', () => {
  test('assign forks at the current position; the original keeps its recording', () => {
    const e = open();
    atLine11(e);
    const at = e.position();
    const total = e.total;
    const r = e.assign('limit = 6');
    expect(r.forked).toBe(true);
    expect(r.timeline).toMatchObject({ id: 1, name: 'what-if 1', current: true });
    expect(r.timeline.writes).toHaveLength(1);
    expect(r.timeline.writes[0]).toMatchObject({ step: at.step, text: 'limit = 6', block: [0, 0, 0], thread: [0, 0, 0] });
    expect(e.position()).toEqual(at);
    expect(e.evaluate('limit').value).toBe('6');
    // two more loop rounds for lane 0: the what-if runs longer than the recording
    expect(e.total).toBeGreaterThan(total);
    expect(e.timelines().map((t) => t.name)).toEqual(['original', 'what-if 1']);
    e.selectTimeline(0);
    expect(e.total).toBe(total);
    expect(e.position()).toEqual(at);
    expect(e.evaluate('limit').value).toBe('4');
  });

  test('the same write gives the same what-if, step for step (determinism)', () => {
    const a = open();
    const b = open();
    atLine11(a);
    atLine11(b);
    a.assign('limit = 6');
    b.assign('limit = 6');
    expect(b.total).toBe(a.total);
    a.goto(a.end());
    b.goto(b.end());
    for (const k of [0, 1, 31]) expect(b.evaluate(`out[${k}]`).value).toBe(a.evaluate(`out[${k}]`).value);
  });

  test('a write in the original starts what-if 2; a write in a what-if adds to it', () => {
    const e = open();
    atLine11(e);
    e.assign('limit = 6');
    e.assign('tile[2] = 100');
    expect(e.timeline().writes.map((w) => w.text)).toEqual(['limit = 6', 'tile[2] = 100']);
    e.selectTimeline(0);
    e.assign('limit = 5');
    expect(e.timeline()).toMatchObject({ id: 2, name: 'what-if 2' });
    expect(e.timelines()[1]!.writes).toHaveLength(2);
    e.goto(e.end());
    expect(e.evaluate('out[0]').value).toBe('16'); // 1+2+3+4+5 + 1
    e.selectTimeline(1);
    e.goto(e.end());
    expect(e.evaluate('out[0]').value).toBe('119'); // s = 1+2+100+4+5+6 = 118, + tile[0]
  });

  test('breakpoints and watchpoints are one set over the timelines', () => {
    const e = open();
    atLine11(e);
    const text = (cmd: string): string => consoleOf(e).execute(cmd).output;
    expect(text('watch out[0]')).toContain('Hardware watchpoint');
    e.assign('limit = 6');
    // the watchpoint set in the original stops on the what-if's write: 21 + tile[0]
    expect(text('continue')).toContain('New value = 22');
    expect(e.watchpoints()).toHaveLength(1);
    e.selectTimeline(0);
    e.goto(e.at(0));
    expect(text('continue')).toContain('New value = 11');
    e.deleteBreakpoint(undefined);
    e.selectTimeline(1);
    expect(e.watchpoints()).toHaveLength(0);
  });

  test('errors by code; a failed write changes nothing', () => {
    const e = open();
    atLine11(e);
    expect(codeOf(() => e.assign('limit + 1 = 3'))).toBe('bad-write');
    expect(codeOf(() => e.assign('*(int *) 0x10 = 3'))).toBe('bad-write');
    expect(codeOf(() => e.assign('nosuch = 3'))).toBe('bad-expression');
    expect(codeOf(() => e.assign('limit = ('))).toBe('bad-expression');
    expect(codeOf(() => e.selectTimeline(1))).toBe('out-of-range');
    expect(e.timelines()).toHaveLength(1);
    e.assign('limit = 6');
    expect(codeOf(() => e.races())).toBe('bad-request'); // the race report is of the recording
    e.selectTimeline(0);
    expect(e.races().races).toEqual([]);
  });

  test('setExpression and setVariable (DAP) return the new value', () => {
    const e = open();
    atLine11(e);
    expect(e.setExpression('tile[2]', '100').value).toBe('100');
    const scopes = e.scopes(0);
    const withLimit = scopes.find((s) => e.variables(s.containerId).some((v) => v.name === 'limit'))!;
    expect(e.setVariable(withLimit.containerId, 'limit', '7').value).toBe('7');
    expect(e.timeline().writes).toHaveLength(2);
    expect(codeOf(() => e.setVariable(e.scopes(0)[0]!.containerId, 'nosuch', '1'))).toBe('bad-request');
    expect(consoleState(e).history.length).toBe(0); // DAP writes do not number values
  });
});
