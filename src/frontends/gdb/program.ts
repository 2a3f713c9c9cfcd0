/**
 * The gdb language's commands for a whole program's launches (issue #25): `launch N`,
 * `goto launch N [step S]`, `info cuda launches`, `set cuda break_on_launch application|none`.
 * One block, spread into the command table of commands.ts.
 */
import { type Engine, EngineError, launchesTable, launchText, type Stop } from '../../engine/index.js';

type Moved = Pick<Stop, 'reason' | 'message'>;

function launchNumber(text: string, what: string): number {
  const n = Number(text.trim());
  if (!text.trim() || !Number.isInteger(n)) throw new EngineError(`${what}: expected a launch number, got '${text.trim()}'`);
  return n;
}

/** `goto launch N [step S]`, undefined when the argument is not about a launch. */
export function gotoLaunchCommand(e: Engine, args: string): Moved | undefined {
  const m = /^launch\s+(\S+)(?:\s+step\s+(\S+))?\s*$/.exec(args.trim());
  if (!m) {
    if (/^launch\b/.test(args.trim())) throw new EngineError('usage: goto launch N [step S]');
    return undefined;
  }
  const step = m[2] === undefined ? 0 : Number(m[2]);
  if (!Number.isInteger(step)) throw new EngineError(`goto launch: expected a step number, got '${m[2]}'`);
  return e.gotoLaunch(launchNumber(m[1]!, 'goto launch'), step);
}

/** `set cuda break_on_launch application|none` (cuda-gdb's; `all` counts as application: no system kernels here). */
export function setCudaCommand(e: Engine, args: string): string {
  const m = /^cuda\s+break_on_launch\s+(\S+)\s*$/.exec(args.trim());
  if (!m) throw new EngineError('usage: set cuda break_on_launch application|none');
  const v = m[1]!;
  if (v !== 'application' && v !== 'all' && v !== 'none') throw new EngineError(`set cuda break_on_launch: expected application, all or none, not '${v}'`);
  e.setBreakOnLaunch(v !== 'none');
  return '';
}

export const PROGRAM_COMMANDS = [
  {
    names: ['launch'], help: 'launch [N]: go to the start of launch N of the program (no N: the launch in focus)',
    run: (e: Engine, a: string): string | Moved => (a.trim() ? e.gotoLaunch(launchNumber(a, 'launch')) : launchText(e)),
  },
  {
    names: ['capture'], help: 'capture DIR: write the launch in focus as a bundle under DIR (what `ptxdbg capture` writes; reopen it with `ptxdbg DIR/NNNN-kernel/kernel.ptx`)',
    run: (e: Engine, a: string): string => `Launch ${e.currentLaunch().index} written to ${e.captureLaunch(a)}`,
  },
] as const;

export { launchesTable };
