/**
 * Test harness for the print tests: load a sample, run the machine one warp-step at a time and
 * stop when a chosen thread is about to execute a chosen source line (like a gdb breakpoint:
 * the instruction at the pc has not run yet). Returns the thread's view.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchFile, type Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Warp } from '../../src/exec/state.js';
import { loadPtx } from '../../src/ptx/index.js';
import type { Program } from '../../src/ptx/resolve.js';
import { laneFrames, MachineThreadView } from '../../src/engine/threadview.js';
import { DebugInfo } from '../../src/engine/print/index.js';
import { ROOT } from '../helpers.js';

export interface Loaded {
  readonly dir: string;
  readonly program: Program;
  readonly launch: Launch;
  readonly info: DebugInfo;
}

export function loadSample(name: string, build: 'G' | 'O3' = 'G', text?: (src: string) => string): Loaded {
  const dir = join(ROOT, 'samples', name);
  const path = join(dir, `kernel.${build}.ptx`);
  const src = readFileSync(path, 'utf8');
  const loaded = loadPtx(text ? text(src) : src, path);
  if (!loaded.program) throw new Error(`${path} does not load: ${loaded.diagnostics.map((d) => d.message).join('; ')}`);
  const launch = readLaunchFile(join(dir, 'launch.json'), loaded.program);
  return { dir, program: loaded.program, launch, info: DebugInfo.fromProgram(loaded.program) };
}

export interface StopSpec {
  readonly block: readonly [number, number, number];
  /** Linear thread index within the block. */
  readonly thread: number;
  /** Source line of kernel.cu, or (with `pc`) an instruction index instead. */
  readonly line?: number;
  readonly pc?: number;
  /** Stop at the n-th arrival on the line (default 1). */
  readonly hit?: number;
  /** Only in this function (default: any). */
  readonly fn?: string;
}

export interface Stopped {
  readonly machine: Machine;
  readonly warp: Warp;
  readonly lane: number;
  view(level?: number): MachineThreadView;
}

/** Run until the thread's innermost frame arrives at `line` (hit times); throws if it never does. */
export function stopAt(s: Loaded, spec: StopSpec, maxSteps = 2_000_000): Stopped {
  const m = new Machine(s.program, s.launch, DEFAULT_RUN_OPTIONS);
  const wi = Math.floor(spec.thread / 32);
  const lane = spec.thread % 32;
  let hits = 0;
  let prev = -1;
  for (let step = 0; step <= maxSteps; step++) {
    if (step > 0) {
      if (m.finished) break;
      m.advance(step);
    }
    const cta = m.resident.find((c) => c.ctaid[0] === spec.block[0] && c.ctaid[1] === spec.block[1] && c.ctaid[2] === spec.block[2]);
    const w = cta?.warps[wi];
    if (!w) continue;
    const f = laneFrames(m, w, lane).frames[0];
    const ok = f !== undefined && (spec.fn === undefined || f.function === spec.fn);
    const here = !ok ? -1 : spec.pc !== undefined ? f.pc : f.line;
    const want = spec.pc ?? spec.line;
    if (here === want && prev !== want) {
      hits++;
      if (hits === (spec.hit ?? 1)) {
        return { machine: m, warp: w, lane, view: (level = 0) => new MachineThreadView(m, w, lane, level) };
      }
    }
    prev = here;
  }
  throw new Error(`thread ${spec.thread} of block ${spec.block.join(',')} never reached ${spec.pc !== undefined ? `pc ${spec.pc}` : `line ${spec.line}`}`);
}

/** The samples' input buffers, as typed arrays. */
export function f32File(path: string): Float32Array {
  const b = readFileSync(path);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
