/**
 * Child grids of dynamic parallelism (CUDA programming guide, "CUDA Dynamic Parallelism"): what a
 * grid launched from device code, and how each child becomes a launch of its own in its parent's
 * device memory.
 *
 * Schedule: a child grid runs after its parent grid has finished, and each child runs with all
 * its own descendants before the next child; tail launches (cudaStreamTailLaunch) run after the
 * parent's other children. A parent cannot wait for its children in CUDA 12 (device-side
 * cudaDeviceSynchronize is gone), so this is one of the schedules the hardware may pick, and it is
 * the same on every run.
 */
import type { Launch } from './launch.js';
import type { ResidentMemory } from './memory.js';
import type { FaultReport, Machine, RunResult } from './machine.js';
import { printName } from '../ptx/names.js';

export type Dim3 = [number, number, number];

/** A grid launched by device code (cudaLaunchDevice), waiting for its parent grid to finish. */
export interface ChildGrid {
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly sharedBytes: number;
  /** The parameter buffer's bytes when it was launched (the child's parameters). */
  readonly params: Uint8Array;
  /** Arena offset of the parameter buffer (freed when the child runs). */
  readonly buffer: number;
  /** cudaStreamTailLaunch: after the parent's other children. */
  readonly tail: boolean;
  /** The launching thread. */
  readonly by: { readonly block: Dim3; readonly thread: Dim3 };
}

/** A launch cudaGetParameterBufferV2 described, waiting for cudaLaunchDeviceV2. */
export interface ParamBufferLaunch {
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly sharedBytes: number;
}

/** Device-side streams and events are handles only: work runs in the order described above. */
export const TAIL_LAUNCH_STREAM = 3n;

/** Nesting depth CUDA allows (cudaLimitDevRuntimeSyncDepth aside, grids nest 24 deep). */
export const MAX_NESTING = 24;
/** Pending child grids one grid may hold before launches fail (CUDA's pending-launch buffer). */
export const MAX_PENDING = 1 << 20;

/** The order children run in: launch order, tail launches last. */
export function childOrder(m: Machine): ChildGrid[] {
  const all = [...m.children.values()];
  return [...all.filter((c) => !c.tail), ...all.filter((c) => c.tail)];
}

/** One line naming a child grid, as the launch was written: `K<<<(g),(b)>>> from block (..) thread (..)`. */
export function childLabel(c: ChildGrid, name: (mangled: string) => string = (n) => n): string {
  return `${name(c.kernel)}<<<(${c.grid.join(',')}),(${c.block.join(',')})>>> launched by block (${c.by.block.join(',')}) thread (${c.by.thread.join(',')})`;
}

/** The memory a child grid runs in: its parent's resident memory, or a view of its arena and variables. */
export function residentOf(m: Machine): ResidentMemory {
  if (m.launch.resident) return m.launch.resident;
  const globals = new Map<string, number>();
  for (const [v, a] of m.globalAddr) if (v.space === 'global') globals.set(v.name, a.lo);
  return { arena: m.arena, globals, constBank: m.constBank, ...(m.mem.images ? { images: m.mem.images } : {}) };
}

/**
 * The launch of child `c` of `parent`, in the parent's memory; its parameter buffer is released
 * (the launch holds a copy of the parameters).
 */
export function childLaunch(parent: Machine, c: ChildGrid, resident: ResidentMemory = residentOf(parent)): Launch {
  const f = parent.program.functions.get(c.kernel)!;
  const args = f.params.map((p) => ({ kind: 'bytes' as const, name: p.name, bytes: c.params.slice(p.frameOffset, p.frameOffset + p.size) }));
  parent.arena.free(c.buffer);
  return { kernel: c.kernel, grid: c.grid, block: c.block, sharedBytes: c.sharedBytes, args, resident, depth: (parent.launch.depth ?? 0) + 1 };
}

/** What running a grid's descendants added: their printf output, their steps, a fault. */
export interface TreeResult {
  stdout: string;
  warpSteps: number;
  threadInstructions: number;
  grids: number;
  fault: FaultReport | undefined;
}

/**
 * Run the descendants of the finished grid `parent` in the schedule above, each grid by `run`
 * (a fresh Machine in the parent's memory, made by the parent's `spawn`; the caller decides how it runs: plain, race-checked).
 * The first fault ends the run; its report names the child grid and who launched it.
 */
export function runDescendants(parent: Machine, run: (m: Machine) => void): TreeResult {
  return runGrids(parent, childOrder(parent), run);
}

/** Run `grids` (children of `parent`, in this order), each with all its descendants. */
export function runGrids(parent: Machine, grids: readonly ChildGrid[], run: (m: Machine) => void): TreeResult {
  const out: TreeResult = { stdout: '', warpSteps: 0, threadInstructions: 0, grids: 0, fault: undefined };
  const resident = residentOf(parent);
  const visit = (m: Machine, list: readonly ChildGrid[]): void => {
    for (const c of list) {
      if (out.fault) return;
      const child = m.spawn(childLaunch(m, c, resident));
      try {
        run(child);
      } finally {
        child.release();
      }
      out.grids++;
      out.stdout += child.stdout;
      out.warpSteps += child.warpSteps;
      out.threadInstructions += child.threadInstructions;
      if (child.fault) {
        out.fault = { ...child.fault, hints: [`in the child grid ${childLabel(c, printName)}`, ...(child.fault.hints ?? [])] };
        return;
      }
      visit(child, childOrder(child));
    }
  };
  visit(parent, grids);
  return out;
}

/** A grid's result with its descendants' added (their output after its own, as printed). */
export function withDescendants(r: RunResult, tree: TreeResult | undefined): RunResult {
  if (!tree || tree.grids === 0) return r;
  return {
    ok: r.ok && tree.fault === undefined,
    fault: r.fault ?? tree.fault,
    stdout: r.stdout + tree.stdout,
    stats: { ...r.stats, warpSteps: r.stats.warpSteps + tree.warpSteps, threadInstructions: r.stats.threadInstructions + tree.threadInstructions },
  };
}
