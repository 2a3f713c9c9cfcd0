/**
 * Host events as positions (issue #25; the numbering is trace/position.ts's): the m host calls and
 * output lines made after launch k-1 and before launch k sit at steps -m..-1 of launch k, those
 * after the last launch n at steps of launch n+1. The engine stops at one when a watchpoint or
 * `goto launch K step -J` lands there (engine/api/program.ts).
 *
 * There is no device state at a host event: no thread runs, no register holds anything. What a
 * stop there shows is the device memory as that call left it (the recording's memory just after
 * the event, ProgramSource.memoryAt), in the frame of the nearest recorded launch (the next one at
 * its start, else the last one at its end), whose kernel parameters name the buffers.
 */
import { EngineError } from '../errors.js';
import { type Position, positionOf } from '../../trace/position.js';
import type { ProgramHostCall, ProgramOutput, ProgramSource } from './source.js';

/** Event `event` (its ProgramEventInfo.event) as a position: the launch after it and its step there (< 0). */
export function hostEventPosition(src: ProgramSource, event: number): Position {
  const evs = src.events;
  const i = evs.findIndex((e) => e.event === event);
  if (i < 0 || evs[i]!.kind === 'launch') throw new EngineError(`event ${event} is not a host event of the program`, 'out-of-range');
  let k = i;
  while (k < evs.length && evs[k]!.kind !== 'launch') k++;
  const next = evs[k];
  const launch = next?.kind === 'launch' ? next.launch : src.launches.length + 1;
  return positionOf(launch, i - k);
}

/** The host event at position p (step < 0), or why there is none. */
export function hostEventAt(src: ProgramSource, p: Position): ProgramHostCall | ProgramOutput {
  const evs = src.events;
  const n = src.launches.length;
  if (!Number.isInteger(p.launch) || p.launch < 1 || p.launch > n + 1) throw new EngineError(`launch ${p.launch} does not exist: the program made ${n} launch${n === 1 ? '' : 'es'} (1..${n}; host events after the last at launch ${n + 1} step -1, -2, ...)`, 'out-of-range');
  const k = p.launch <= n ? evs.findIndex((e) => e.kind === 'launch' && e.launch === p.launch) : evs.length;
  let first = k;
  while (first > 0 && evs[first - 1]!.kind !== 'launch') first--;
  const e = evs[k + p.step];
  if (!Number.isInteger(p.step) || k + p.step < first || !e || e.kind === 'launch') {
    const m = k - first;
    throw new EngineError(`launch ${p.launch} step ${p.step}: ${m ? `the host events before launch ${p.launch} are at steps -${m}..-1` : `there is no host event before launch ${p.launch}`}`, 'out-of-range');
  }
  return e;
}

/** How a stop at host event e reads: `[host cudaMemcpy (write) at offbyone.cu:39 in main, before launch 1: launch 1 step -2]`. */
export function hostEventLine(e: ProgramHostCall | ProgramOutput, at: Position, launches: number): string {
  const where = at.launch > launches ? `after launch ${launches}, the last` : `before launch ${at.launch}`;
  const what = e.kind === 'host' ? `${e.api}${e.op && e.op !== e.api ? ` (${e.op})` : ''} at ${e.site ?? 'an unknown host call site'}` : `${e.stream} output ${JSON.stringify(e.text.length > 40 ? `${e.text.slice(0, 40)}...` : e.text)}`;
  return `[host ${what}, ${where}: launch ${at.launch} step ${at.step}]`;
}
