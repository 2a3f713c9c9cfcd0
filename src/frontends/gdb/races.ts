/** `info races` and `race N [2]`: the gdb language's text over the engine's race requests. */
import { formatReport } from '../../races/index.js';
import { gotoRace, sessionRaces } from '../../engine/races.js';
import type { Session } from '../../engine/session.js';
import type { Stop } from '../../engine/types.js';

export function infoRaces(s: Session): string {
  const rep = sessionRaces(s);
  if (!rep.races.length && !rep.benign.length && !rep.barrierErrors.length) return 'No races or barrier errors found.';
  return formatReport(rep) + (rep.races.length ? '\nUse "race N" to travel to the first access of race N, "race N 2" to the second.' : '');
}

export function raceCommand(s: Session, args: string): Stop {
  const [nText = '', which = '1'] = args.trim().split(/\s+/);
  return gotoRace(s, Number(nText), which === '2' || which === 'other' || which === 'second');
}
