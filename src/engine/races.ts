/**
 * Races inside a debugging session: the race checker runs the same launch under the same
 * schedule as the recording, so each reported access step is a position of this trace, and
 * `gotoRace` travels to it with the accessing thread in focus.
 */
import { checkRun, type RaceReport } from '../races/index.js';
import { EngineError } from './errors.js';
import { printName } from '../ptx/names.js';
import type { Session } from './session.js';
import type { Stop, TimelineMark } from './types.js';

/** The run's race report, computed on first use and kept on the session (with timeline marks). */
export function sessionRaces(s: Session): RaceReport {
  const rep = s.raceReport ?? checkRun(s.program, s.launch, s.options).report;
  if (!s.raceReport) adoptRaces(s, rep);
  return rep;
}

/** Keep a report of s's launch (run with s's options) on s, with its timeline marks (a program's launch checked before it was recorded). */
export function adoptRaces(s: Session, rep: RaceReport): void {
  s.raceReport = rep;
  const marks: TimelineMark[] = [];
  for (const r of rep.races) for (const a of r.accesses) marks.push({ at: s.at(a.step), kind: 'race' });
  s.raceMarks = marks;
}

/** Travel to the first (or second) access of race n (1-based), focusing the accessing thread. */
export function gotoRace(s: Session, n: number, second: boolean): Stop {
  const rep = sessionRaces(s);
  if (!Number.isInteger(n) || n < 1 || n > rep.races.length) {
    throw new EngineError(rep.races.length ? `race N: N is 1..${rep.races.length} (see "info races")` : 'No races were found in this run.', 'no-race');
  }
  const r = rep.races[n - 1]!;
  const a = r.accesses[second ? 1 : 0];
  const st = s.focusStep(a.step, a.block, a.thread); // range-checked there
  return { ...st, hit: { kind: 'race', race: n, second }, message: `Race ${n} (${r.kind} on ${r.space}${r.variable ? ` ${r.variable}` : ''}), ${second ? 'second' : 'first'} access: ${a.op} by block (${a.block.join(',')}) thread (${a.thread.join(',')}) at ${a.file ?? printName(a.function)}:${a.line} (step ${a.step})` };
}
