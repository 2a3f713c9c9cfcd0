/**
 * Texts of the program timeline (issue #25): `info cuda launches`, and the reply to `launch`.
 */
import type { Engine } from '../api.js';
import type { LaunchInfo } from '../types.js';

const dim = (d: readonly number[]): string => `(${d.join(',')})`;

/** `scale<<<(2,1,1),(4,1,1)>>>`. */
export function launchLabel(l: LaunchInfo): string {
  return `${l.kernel}<<<${dim(l.grid)},${dim(l.block)}>>>`;
}

/** `info cuda launches`: every launch with its kernel, grid × block, host call site and warp-steps; the one in focus marked. */
export function launchesTable(e: Engine): string {
  const ls = e.launches();
  const cur = e.position().launch;
  // a Fault column when a launch faulted (the launch a continue stops in)
  const faults = ls.some((l) => l.fault !== undefined);
  const rows = ls.map((l) => [
    `${l.index === cur ? '*' : ' '} ${String(l.index).padStart(6)}`, l.kernel, `${dim(l.grid)} x ${dim(l.block)}`,
    l.steps === undefined ? 'unrecorded' : String(l.steps), `${l.site ?? '-'}${l.launchedBy ? ` (launched by ${l.launchedBy})` : ''}`,
    ...(faults ? [l.fault ?? '-'] : []),
  ]);
  const head = ['  Launch', 'Kernel', 'Grid x Block', 'Warp-steps', 'Host call site', ...(faults ? ['Fault'] : [])];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === 3 ? c.padStart(width[i]!) : i === r.length - 1 ? c : c.padEnd(width[i]!))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

/** The launch in focus, in words: `launch 2 of 3: scale<<<(2,1,1),(4,1,1)>>> at offbyone.cu:57 in main, 120 warp-steps`. */
export function launchText(e: Engine): string {
  const l = e.currentLaunch();
  const n = e.launches().length;
  return `launch ${l.index} of ${n}: ${launchLabel(l)}${l.site ? ` at ${l.site}` : ''}, ${l.steps ?? '?'} warp-steps`;
}
