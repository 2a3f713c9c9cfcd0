/**
 * Running a launch under the race checker: once with a given schedule, or under several seeded
 * random schedules with the findings merged (deduplicated by kind, space, instruction pair and
 * intra-warp) and the final buffers / printf output compared across schedules.
 */
import { runObservingSpins } from '../exec/spin.js';
import { LaunchSetupError, runToEnd } from '../exec/run-to-end.js';
import { elemSize, type Launch } from '../exec/launch.js';
import type { Machine, RunOptions, RunResult } from '../exec/machine.js';
import type { Program } from '../ptx/resolve.js';
import { RaceChecker } from './checker.js';
import { buildReport } from './report.js';
import { runDescendants, withDescendants } from '../exec/children.js';
import { printName } from '../ptx/names.js';
import type { BarrierError, RaceEntry, RaceReport } from './types.js';

export interface CheckedRun {
  readonly report: RaceReport;
  readonly machine: Machine;
  readonly result: RunResult;
}

/** The machine or the checker cannot take this launch (parameter mismatch, too large): src/exec/run-to-end.ts. */
export { LaunchSetupError };

/** One run of the launch with the checker attached. */
export function checkRun(program: Program, launch: Launch, opts: RunOptions, advance?: (m: Machine) => void): CheckedRun {
  let checker: RaceChecker | undefined;
  const { machine, result } = runToEnd(program, launch, opts, {
    attach: (m) => {
      const c = (checker = new RaceChecker(m));
      c.attach();
      return () => c.finish();
    },
    // a whole program's launch first runs in slices while the program waits for it (exec)
    ...(advance ? { before: advance } : {}),
  });
  return { report: buildReport(machine, checker!), machine, result };
}

/**
 * `checkRun` of a launch and of the grids it launches from device code (src/exec/children.ts),
 * each under a checker of its own (a parent and its children never overlap in time); findings of
 * a child grid are labelled with it.
 */
export function checkTree(program: Program, launch: Launch, opts: RunOptions): CheckedRun {
  const top = checkRun(program, launch, opts);
  if (top.machine.fault || top.machine.children.size === 0) return top;
  const report: RaceReport = { ...top.report, races: [...top.report.races], benign: [...top.report.benign], barrierErrors: [...top.report.barrierErrors] };
  const tree = runDescendants(top.machine, (child) => {
    const checker = new RaceChecker(child);
    checker.attach();
    try {
      runObservingSpins(child);
    } finally {
      checker.finish();
    }
    const rep = buildReport(child, checker);
    const c = childLabel(child);
    report.races.push(...rep.races.map((r) => ({ ...r, grid: c })));
    report.benign.push(...rep.benign.map((r) => ({ ...r, grid: c })));
    report.barrierErrors.push(...rep.barrierErrors.map((e) => ({ ...e, grid: c })));
    report.truncated += rep.truncated;
    report.fault ??= rep.fault;
  });
  return { report, machine: top.machine, result: withDescendants(top.result, tree) };
}

function raceKey(r: RaceEntry): string {
  const [a, b] = r.accesses;
  return `${r.kind}|${r.space}|${a.function}:${a.pc}|${b.function}:${b.pc}|${r.intraWarp ? 1 : 0}`;
}

function mergeRaces(into: Map<string, RaceEntry>, list: readonly RaceEntry[], seed: number): void {
  for (const r of list) {
    const k = raceKey(r);
    const hit = into.get(k);
    if (hit) {
      hit.count += r.count;
      hit.seeds!.push(seed);
    } else into.set(k, { ...r, seeds: [seed] });
  }
}

function bufferBytes(m: Machine): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const b of m.buffers) {
    out.set(b.name, m.arena.bank.u8.slice(b.alloc.base, b.alloc.base + b.count * elemSize(b.type)));
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `count` runs under random schedules with seeds seed, seed+1, ...; findings merged. */
export function checkSchedules(program: Program, launch: Launch, base: RunOptions, count: number, seed: number): RaceReport {
  const races = new Map<string, RaceEntry>();
  const benign = new Map<string, RaceEntry>();
  const errors = new Map<string, BarrierError>();
  const seeds: number[] = [];
  const differing = new Set<string>();
  let first: { buffers: Map<string, Uint8Array>; stdout: string } | undefined;
  let truncated = 0;
  let fault: string | null = null;
  for (let i = 0; i < count; i++) {
    const s = seed + i;
    seeds.push(s);
    const run = checkRun(program, launch, { ...base, schedule: 'random', seed: s });
    mergeRaces(races, run.report.races, s);
    mergeRaces(benign, run.report.benign, s);
    for (const e of run.report.barrierErrors) {
      const k = `${e.kind}|${e.function}:${e.pc}`;
      const hit = errors.get(k);
      if (hit) hit.seeds!.push(s);
      else errors.set(k, { ...e, seeds: [s] });
    }
    truncated += run.report.truncated;
    if (fault === null && run.report.fault !== null) fault = `${run.report.fault} (seed ${s})`;
    const buffers = bufferBytes(run.machine);
    if (!first) first = { buffers, stdout: run.result.stdout };
    else {
      for (const [name, bytes] of buffers) if (!sameBytes(bytes, first.buffers.get(name)!)) differing.add(name);
      if (run.result.stdout !== first.stdout) differing.add('stdout');
    }
  }
  return {
    races: [...races.values()], benign: [...benign.values()], barrierErrors: [...errors.values()], truncated, fault,
    schedules: { count, seeds, outputsDiffer: differing.size > 0, differing: [...differing].sort() },
  };
}

/** A child grid as it was launched: `kernel<<<(grid),(block)>>>`. */
function childLabel(m: Machine): string {
  return `${printName(m.launch.kernel)}<<<(${m.launch.grid.join(',')}),(${m.launch.block.join(',')})>>>`;
}
