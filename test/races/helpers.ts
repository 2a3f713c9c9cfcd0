/** Helpers for race checker tests: run hand-written PTX under the checker. */
import type { ElemType, Launch, LaunchArg } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { checkRun, type CheckedRun } from '../../src/races/run.js';
import type { RaceEntry } from '../../src/races/types.js';

/** Module header with a source file, so `.loc 1 N 0` gives line N of t.cu. */
export const HEADER = '.version 8.0\n.target sm_80\n.address_size 64\n.file 1 "/src/t/t.cu"\n';

export interface TestLaunch {
  grid?: number;
  block: number | [number, number, number];
  /** u32 buffers, in parameter order, with optional initial contents. */
  buffers?: { name: string; count: number; init?: number[]; type?: ElemType }[];
  scalars?: { name: string; value: number }[];
  opts?: Partial<RunOptions>;
}

export function runPtx(ptx: string, l: TestLaunch): CheckedRun {
  const loaded = loadPtx(ptx, 't.ptx');
  if (!loaded.program) throw new Error(`test PTX does not load: ${loaded.diagnostics.map((d) => `@${d.span.start}: ${d.message}`).join('; ')}`);
  const program = loaded.program;
  const kernel = [...program.functions.values()].find((f) => f.isEntry)!.name;
  const args: LaunchArg[] = (l.buffers ?? []).map((b) => {
    const type = b.type ?? 'u32';
    let init: Uint8Array | undefined;
    if (b.init) {
      const words = new Uint32Array(b.count);
      words.set(b.init);
      init = new Uint8Array(words.buffer);
    }
    return { kind: 'buffer', name: b.name, type, count: b.count, init, file: undefined };
  });
  for (const s of l.scalars ?? []) args.push({ kind: 'scalar', name: s.name, type: 'u32', value: s.value });
  const block: [number, number, number] = typeof l.block === 'number' ? [l.block, 1, 1] : l.block;
  const launch: Launch = { kernel, grid: [l.grid ?? 1, 1, 1], block, sharedBytes: 0, args };
  return checkRun(program, launch, { ...DEFAULT_RUN_OPTIONS, ...l.opts });
}

/** Source lines of a race's two accesses, in report order. */
export function lines(r: RaceEntry): [number, number] {
  return [r.accesses[0].line, r.accesses[1].line];
}

/** The races touching both lines (in either order). */
export function between(races: readonly RaceEntry[], a: number, b: number): RaceEntry[] {
  return races.filter((r) => {
    const [x, y] = lines(r);
    return (x === a && y === b) || (x === b && y === a);
  });
}
