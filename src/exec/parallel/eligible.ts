/**
 * Whether a launch may run its CTAs on worker threads. Workers share global memory but nothing
 * else, so a launch qualifies only when its CTAs talk through global loads, stores and atomics
 * alone (atomics take striped locks, memops.ts): every result of such a run is one a schedule
 * of its CTAs on one thread could give. What needs one ordered view of the machine
 * keeps the launch on one thread: printf (its order), the device heap and runtime (malloc,
 * child grids), grid and cluster synchronisation, surface reductions. The answer says why not,
 * so `--stats` can tell the user.
 */
import type { Program } from '../../ptx/resolve.js';
import { reachable } from '../reach.js';
import type { Launch } from '../launch.js';

/** Extern calls a worker may make: an assertion ends the run in a fault, which reruns it on one thread. */
const WORKER_SAFE_CALLS = new Set(['__assertfail', '__assert_fail']);

/** Opcodes that act on another CTA's state or on cluster/tensor hardware no worker shares. */
const CROSS_CTA_OPCODES = new Set(['mapa', 'getctarank', 'multimem', 'clusterlaunchcontrol', 'tcgen05']);

/** Reductions that take no lock (memops.ts locks atom and red only). */
const UNLOCKED_REDUCTIONS = new Set(['sured']);

/** The code's answer (the launch's is added by sequentialReason), per program and kernel. */
const byKernel = new WeakMap<Program, Map<string, string | undefined>>();

/** Why the launch must run on one thread, or undefined when workers may share it. */
export function sequentialReason(program: Program, launch: Launch): string | undefined {
  if (launch.cooperative) return 'a cooperative launch synchronises its whole grid';
  let known = byKernel.get(program);
  if (known === undefined) { known = new Map(); byKernel.set(program, known); }
  if (!known.has(launch.kernel)) known.set(launch.kernel, codeReason(program, launch.kernel));
  return known.get(launch.kernel);
}

/** Why the code `kernel` reaches needs one thread, or undefined. */
function codeReason(program: Program, kernel: string): string | undefined {
  const { functions, externs } = reachable(program, kernel);
  for (const fn of functions) {
    for (const ins of fn.instrs) {
      const why = instructionReason(ins.opcode, ins.mods);
      if (why !== undefined) return why;
    }
  }
  const call = externs.find((n) => !WORKER_SAFE_CALLS.has(n));
  return call === undefined ? undefined : `it calls ${call}`;
}

function instructionReason(opcode: string, mods: readonly string[]): string | undefined {
  if (CROSS_CTA_OPCODES.has(opcode)) return `it uses ${opcode}`;
  if (UNLOCKED_REDUCTIONS.has(opcode)) return `it uses ${opcode}`;
  if (opcode === 'cp' && mods.includes('reduce')) return 'it uses cp.reduce';
  // run reports the first brkpt a thread executes, which is the one-thread order's first
  if (opcode === 'brkpt') return 'it uses brkpt';
  if (mods.some((m) => m.includes('cluster'))) return `it uses ${opcode} on a cluster`;
  return undefined;
}
