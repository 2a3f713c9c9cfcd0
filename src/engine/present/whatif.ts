/**
 * The words for writes and what-if timelines (issue #27): `print x = v` (gdb's `$N = v`),
 * `set var x = v` (silent in gdb; here one line says which timeline the write forked), and
 * `info timeline`.
 */
import { printExpression } from '../print/index.js';
import type { Engine } from '../api.js';
import { sessionOf } from '../api.js';
import type { TimelineInfo, WriteInfo } from '../whatif/timelines.js';
import { consoleState } from './state.js';

/**
 * `print[/F] LHS = V` (`command` 'print': the new value as `$N = v`) or `set var LHS = V`
 * ('set': nothing but the fork note), and the note saying where the write went.
 */
export function assignText(e: Engine, args: string, command: 'print' | 'set'): string {
  const m = /^\s*(\/\w+)?\s*(.*)$/s.exec(args)!;
  const format = m[1] ?? '';
  const expr = m[2]!.trim();
  const history = consoleState(e).history;
  const r = e.assign(expr, history);
  const out: string[] = [];
  if (command === 'print') {
    const s = sessionOf(e);
    out.push(printExpression(s.debugInfo(), s.threadView(), `${format} ${r.lhs}`, history));
  }
  if (r.forked) out.push(forkNote(e, r.timeline, r.position.step));
  return out.join('\n');
}

function forkNote(e: Engine, t: TimelineInfo, step: number): string {
  const original = e.timelines()[0]!;
  const n = t.writes.length;
  const first = t.writes[0]!.step;
  const ran = n === 1
    ? `the launch re-ran with it from step ${step}`
    : `the launch re-ran with its ${n} writes from step ${first}`;
  // a whole program: the fork is of the launch in focus; the launches after it are not re-run
  const launch = e.isProgram ? e.position().launch : undefined;
  const where = launch === undefined ? ran : `${ran.replace('the launch', `launch ${launch}`)}; later launches are the recorded ones, not re-executed with it`;
  return `[${t.name}] written at step ${step}; ${where} (${t.total} steps; the original recording, unchanged, has ${original.total}). "timeline original" returns to it.`;
}

/** The header's timeline tag: '' in the original recording, `what-if N: ` in a what-if. */
export function timelineTag(e: Engine): string {
  const t = e.timeline();
  return t.id === 0 ? '' : `${t.name}: `;
}

function bytesHex(b: Uint8Array | undefined): string {
  if (!b) return '?';
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return `0x${v.toString(16)}`;
}

function writeLine(w: WriteInfo, i: number): string {
  return `  ${i + 1}. step ${w.step}, block (${w.block.join(',')}) thread (${w.thread.join(',')}): ${w.text}  [${w.where}: ${bytesHex(w.before)} -> ${bytesHex(w.bytes)}]`;
}

/** `info timeline`: the current timeline and every other, with their writes. */
export function infoTimelineText(e: Engine): string {
  const all = e.timelines();
  const cur = all.find((t) => t.current)!;
  const lines: string[] = [];
  lines.push(cur.id === 0
    ? `Current timeline: the original recording (${cur.total} steps, no writes).`
    : `Current timeline: ${cur.name}, forked from the original recording at step ${cur.writes[0]!.step} (${cur.total} steps; the original has ${all[0]!.total}).`);
  for (const t of all) {
    lines.push(`${t.current ? '*' : ' '} ${t.id === 0 ? 'original' : t.name}: ${t.total} steps${t.id === 0 ? ', as recorded' : `, ${t.writes.length} write${t.writes.length === 1 ? '' : 's'}:`}`);
    t.writes.forEach((w, i) => lines.push(`  ${writeLine(w, i)}`));
  }
  if (all.length === 1) lines.push('A write (print x = v, set var x = v) forks a what-if timeline; the recording itself never changes.');
  return lines.join('\n');
}

/** `timeline original | N`: travel to a timeline at the current step. */
export function timelineCommandTarget(arg: string): number | undefined {
  const t = arg.trim().toLowerCase();
  if (t === 'original' || t === '0') return 0;
  const m = /^(?:what-?if\s*)?(\d+)$/.exec(t);
  return m ? Number(m[1]) : undefined;
}
