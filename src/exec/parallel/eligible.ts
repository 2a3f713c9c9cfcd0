/**
 * Whether a launch may run its CTAs on worker threads. Workers share global memory but nothing
 * else, so a launch qualifies only when its CTAs can talk through plain loads and stores alone:
 * and atomics (which take striped locks, memops.ts), so every result of such a run is one a
 * schedule of its CTAs on one thread could give. What needs one ordered view of the machine
 * keeps the launch on one thread: printf (its order), the device heap and runtime (malloc,
 * child grids), grid and cluster synchronisation, surface reductions. The answer says why not,
 * so `--stats` can tell the user.
 */
import type { Program, ROperand } from '../../ptx/resolve.js';
import type { Launch } from '../launch.js';

/** Extern calls a worker may make: an assertion ends the run in a fault, which reruns it on one thread. */
const WORKER_SAFE_CALLS = new Set(['__assertfail', '__assert_fail']);

/** Opcodes that act on another CTA's state or on cluster/tensor hardware no worker shares. */
const CROSS_CTA_OPCODES = new Set(['mapa', 'getctarank', 'multimem', 'clusterlaunchcontrol', 'tcgen05']);

/** Reductions that take no lock (memops.ts locks atom and red only). */
const UNLOCKED_REDUCTIONS = new Set(['sured']);

/** Why the launch must run on one thread, or undefined when workers may share it. */
export function sequentialReason(program: Program, launch: Launch): string | undefined {
  if (launch.cooperative) return 'a cooperative launch synchronises its whole grid';
  const seen = new Set<string>();
  const work = [launch.kernel];
  let why: string | undefined;
  const visit = (o: ROperand | undefined): void => {
    if (o === undefined) return;
    switch (o.kind) {
      case 'func': if (!seen.has(o.name)) work.push(o.name); return;
      case 'addr': visit(o.base); return;
      case 'vec': case 'list': for (const i of o.items) visit(i); return;
      case 'not': case 'neg': visit(o.inner); return;
      case 'pair': visit(o.a); visit(o.b); return;
      default: return;
    }
  };
  while (work.length && why === undefined) {
    const name = work.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const fn = program.functions.get(name);
    if (!fn) {
      if (program.prototypes.has(name) && !WORKER_SAFE_CALLS.has(name)) why = `it calls ${name}`;
      continue;
    }
    for (const ins of fn.instrs) {
      why = instructionReason(ins.opcode, ins.mods);
      if (why !== undefined) break;
      for (const o of ins.operands) visit(o);
    }
  }
  return why;
}

function instructionReason(opcode: string, mods: readonly string[]): string | undefined {
  if (CROSS_CTA_OPCODES.has(opcode)) return `it uses ${opcode}`;
  if (UNLOCKED_REDUCTIONS.has(opcode)) return `it uses ${opcode}`;
  if (opcode === 'cp' && mods.includes('reduce')) return 'it uses cp.reduce';
  if (mods.some((m) => m.includes('cluster'))) return `it uses ${opcode} on a cluster`;
  return undefined;
}
