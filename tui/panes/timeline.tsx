/**
 * Timeline bar: the whole recorded run in one line, the current step, and marks (breakpoint
 * hits, watchpoint hits, races, the fault) bucketed to the bar's cells.
 *
 * In a whole program (several launches) the bar is the current launch, labelled with its index
 * (`launch 2/3 step 5/40`), rather than one bar over every launch: launches differ in length by
 * orders of magnitude and a program may make thousands (samples/apps/timeline/many.cu makes
 * 1,000), so a bar spanning them would give a launch less than a cell and lose the position
 * within it, which is what `[`/`]` and `{`/`}` move by; the marks are the current launch's too.
 * The launch list itself is `:info cuda launches`.
 */
import type { TimelineMark } from '#engine';
import type { Line, Seg, Style } from '../ui.js';
import { seg } from '../ui.js';

type Kind = TimelineMark['kind'];

const MARK: Record<Kind, { ch: string; style: Style; rank: number }> = {
  fault: { ch: '✖', style: { color: 'red', bold: true }, rank: 4 },
  race: { ch: '!', style: { color: 'magenta', bold: true }, rank: 3 },
  watch: { ch: 'w', style: { color: 'cyan', bold: true }, rank: 2 },
  breakpoint: { ch: 'b', style: { color: 'red' }, rank: 1 },
};

/** Bar cell of a position (positions run 0..total). */
export function cellOf(step: number, total: number, cells: number): number {
  if (cells <= 0 || total <= 0) return 0;
  return Math.min(cells - 1, Math.floor((step * cells) / (total + 1)));
}

/** The most important mark kind per cell. */
export function bucketMarks(marks: readonly TimelineMark[], total: number, cells: number): (Kind | undefined)[] {
  const out: (Kind | undefined)[] = new Array<Kind | undefined>(cells).fill(undefined);
  for (const m of marks) {
    const c = cellOf(m.at.step, total, cells);
    const cur = out[c];
    if (cur === undefined || MARK[m.kind].rank > MARK[cur].rank) out[c] = m.kind;
  }
  return out;
}

const CUR: Style = { color: 'white', bold: true };
const CUR_FAULT: Style = { color: 'red', bold: true };
const PAST: Style = { color: 'green' };
const FUTURE: Style = { dim: true };

/** The current launch and how many the program made (shown when there are several). */
export interface LaunchOf { readonly index: number; readonly count: number }

function timelineLabel(step: number, total: number, launch: LaunchOf | undefined, host?: string): string {
  // at a host call (step < 0, before the launch): the call, then where it sits on the timeline
  if (host !== undefined) return ` host ${host} · ${launch && launch.count > 1 ? `launch ${launch.index}/${launch.count} ` : ''}step ${step} `;
  return launch && launch.count > 1 ? ` launch ${launch.index}/${launch.count} step ${step}/${total} ` : ` step ${step}/${total} `;
}

/** `host`: the host call stood at (`cudaMemcpy offbyone.cu:39`), before the launch's first step. */
export function timelineLine(step: number, total: number, buckets: readonly (Kind | undefined)[], fault: boolean, launch?: LaunchOf, host?: string): Line {
  const label = timelineLabel(step, total, launch, host);
  const cells = buckets.length;
  const cur = cellOf(Math.max(0, step), total, cells);
  const out: Seg[] = [seg(label, { bold: true, color: fault ? 'red' : 'cyan' })];
  // Runs of equal style become one segment (fewer Ink nodes per frame).
  let run = '';
  let runStyle: Style | undefined;
  const flush = (): void => {
    if (run) out.push(seg(run, runStyle));
    run = '';
  };
  for (let c = 0; c < cells; c++) {
    const k = buckets[c];
    let ch: string;
    let st: Style;
    if (c === cur) { ch = '┃'; st = fault ? CUR_FAULT : CUR; }
    else if (k) { ch = MARK[k].ch; st = MARK[k].style; }
    else if (c < cur) { ch = '━'; st = PAST; }
    else { ch = '─'; st = FUTURE; }
    if (st !== runStyle) { flush(); runStyle = st; }
    run += ch;
  }
  flush();
  return out;
}

export function timelineCells(width: number, step: number, total: number, launch?: LaunchOf, host?: string): number {
  return Math.max(1, width - timelineLabel(step, total, launch, host).length - 1);
}
