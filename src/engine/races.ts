/**
 * Races inside a debugging session: the race checker runs the same launch under the same
 * schedule as the recording, so each reported access step is a position of this trace, and
 * `race N` travels to it with the accessing thread in focus.
 */
import { checkRun, formatReport, type RaceReport } from '../races/index.js';
import { SessionError, type Session } from './session.js';
import type { Stop, TimelineMark } from './types.js';

export function sessionRaces(s: Session): RaceReport {
  let rep = s.commandState.get('races') as RaceReport | undefined;
  if (!rep) {
    rep = checkRun(s.program, s.launch, s.options).report;
    s.commandState.set('races', rep);
    const marks: TimelineMark[] = [];
    for (const r of rep.races) for (const a of r.accesses) marks.push({ step: a.step, kind: 'race' });
    s.commandState.set('raceMarks', marks);
  }
  return rep;
}

export function infoRaces(s: Session): string {
  const rep = sessionRaces(s);
  if (!rep.races.length && !rep.benign.length && !rep.barrierErrors.length) return 'No races or barrier errors found.';
  return formatReport(rep) + (rep.races.length ? '\nUse "race N" to travel to the first access of race N, "race N 2" to the second.' : '');
}

export function raceCommand(s: Session, args: string): Stop {
  const [nText = '', which = '1'] = args.trim().split(/\s+/);
  const rep = sessionRaces(s);
  const n = Number(nText);
  if (!Number.isInteger(n) || n < 1 || n > rep.races.length) {
    throw new SessionError(rep.races.length ? `race N: N is 1..${rep.races.length} (see "info races")` : 'No races were found in this run.');
  }
  const r = rep.races[n - 1]!;
  const second = which === '2' || which === 'other' || which === 'second';
  const a = r.accesses[second ? 1 : 0];
  if (a.step > s.total) throw new SessionError(`race ${n}: step ${a.step} is beyond the recording`);
  const st = s.focusStep(a.step, a.block, a.thread);
  return { ...st, message: `Race ${n} (${r.kind} on ${r.space}${r.variable ? ` ${r.variable}` : ''}), ${second ? 'second' : 'first'} access: ${a.op} by block (${a.block.join(',')}) thread (${a.thread.join(',')}) at ${a.file ?? a.function}:${a.line} (step ${a.step})` };
}
