/**
 * `ptxdbg races`: run one launch under the race and synchronisation checker and report data
 * races (with both accesses), benign same-value races and barrier errors. The report goes to
 * stdout (text, or the JSON contract with --json); the kernel's printf output is not shown.
 * Exit 0 when clean, 1 when races or barrier errors were found, 3 when the kernel faulted
 * otherwise, 2 for bad usage or a bad launch.
 */
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../exec/machine.js';
import { checkTree, checkSchedules, LaunchSetupError } from '../races/run.js';
import { formatReport } from '../races/format.js';
import type { RaceReport } from '../races/types.js';
import { type LaunchFlags, loadForLaunch } from './run.js';

export interface RacesCommandOptions extends LaunchFlags {
  json?: boolean;
  schedule?: 'rr' | 'random';
  seed?: number;
  schedules?: number | undefined;
  maxSteps?: number | undefined;
}

export function racesCommand(ptxPath: string, o: RacesCommandOptions): number {
  const loaded = loadForLaunch(ptxPath, o);
  if (typeof loaded === 'number') return loaded;
  const { program, launch } = loaded;
  if (o.schedules !== undefined && (!Number.isInteger(o.schedules) || o.schedules < 1 || o.schedules > 10000)) {
    process.stderr.write('ptxdbg: --schedules must be an integer from 1 to 10000\n');
    return 2;
  }
  const seed = o.seed ?? 1;
  if (!Number.isInteger(seed)) {
    process.stderr.write('ptxdbg: --seed must be an integer\n');
    return 2;
  }
  const opts: RunOptions = {
    ...DEFAULT_RUN_OPTIONS,
    schedule: o.schedule ?? 'rr',
    seed,
    maxSteps: o.maxSteps ?? DEFAULT_RUN_OPTIONS.maxSteps,
  };
  let report: RaceReport;
  try {
    report = o.schedules !== undefined
      ? checkSchedules(program, launch, opts, o.schedules, seed)
      : checkTree(program, launch, opts).report;
  } catch (e) {
    if (!(e instanceof LaunchSetupError)) throw e;
    process.stderr.write(`ptxdbg: cannot set up the launch: ${(e as Error).message}\n`);
    return 2;
  }
  process.stdout.write(o.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report));
  if (report.races.length > 0 || report.barrierErrors.length > 0) return 1;
  if (report.fault !== null) {
    process.stderr.write(`ptxdbg: the kernel faulted: ${report.fault}\n`);
    return 3;
  }
  return 0;
}
