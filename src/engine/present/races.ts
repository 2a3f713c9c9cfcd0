/** `info races` as text and as rows (the gdb language's reply, the TUI's Races pane). */
import { formatReport } from '../../races/index.js';
import { raceBlock } from '../../races/format.js';
import type { Engine } from '../api.js';
import { programRacesText } from './program-races.js';

/** `info races`: the run's race report in the race checker's words, with how to travel to one. */
export function infoRaces(e: Engine): string {
  // a program's: every launch's (program-races.ts)
  return e.isProgram ? programRacesText(e) : launchRaces(e);
}

/** The launch in focus's report. */
function launchRaces(e: Engine): string {
  const rep = e.races();
  if (!rep.races.length && !rep.benign.length && !rep.barrierErrors.length) return 'No races or barrier errors found.';
  return formatReport(rep) + (rep.races.length ? '\nUse "race N" to travel to the first access of race N, "race N 2" to the second.' : '');
}

/** A line of `info races`, with the race (1-based) it describes, if any. */
export interface RaceRow {
  readonly text: string;
  readonly race: number | undefined;
}

/** `info races` as rows that know their race (the TUI's Races pane travels from any of them). */
export function raceReportRows(e: Engine): RaceRow[] {
  const rep = e.races();
  const text = launchRaces(e).split('\n');
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
