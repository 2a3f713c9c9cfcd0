/** `info races` and `race N [2]`: the gdb language's text over the engine's race requests. */
import { formatReport } from '../../races/index.js';
import { raceBlock } from '../../races/format.js';
import { sessionRaces } from '../../engine/races.js';
import { engineOf, type StopEvent } from '../../engine/api.js';
import type { Session } from '../../engine/session.js';

export function infoRaces(s: Session): string {
  const rep = sessionRaces(s);
  if (!rep.races.length && !rep.benign.length && !rep.barrierErrors.length) return 'No races or barrier errors found.';
  return formatReport(rep) + (rep.races.length ? '\nUse "race N" to travel to the first access of race N, "race N 2" to the second.' : '');
}

export function raceCommand(s: Session, args: string): StopEvent {
  const [nText = '', which = '1'] = args.trim().split(/\s+/);
  return engineOf(s).gotoRace(Number(nText), which === '2' || which === 'other' || which === 'second');
}

/** A line of `info races`, with the race (1-based) it describes, if any. */
export interface RaceRow {
  readonly text: string;
  readonly race: number | undefined;
}

/** `info races` as rows that know their race (the TUI's Races pane travels from any of them). */
export function raceReportRows(s: Session): RaceRow[] {
  const rep = sessionRaces(s);
  const text = infoRaces(s).split('\n');
  if (text[text.length - 1] === '') text.pop();
  // the report opens with one block per race (raceBlock), in order
  const rows: RaceRow[] = [];
  let at = 0;
  rep.races.forEach((r, i) => {
    for (const line of raceBlock(r, i, 'race')) rows.push({ text: text[at++] ?? line, race: i + 1 });
  });
  for (; at < text.length; at++) rows.push({ text: text[at]!, race: undefined });
  return rows;
}
