/**
 * `ptxdbg run`: execute one launch per the conformance contract. stdout carries only the
 * kernel's printf output; reports and statistics go to stderr.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../exec/machine.js';
import { elemSize, type ElemType, type Launch, LaunchError } from '../exec/launch.js';
import { EngineError } from '../engine/errors.js';
import { resolveLaunch, type LaunchFlags } from '../engine/load.js';
import { formatFault } from '../engine/fault.js';
import { KernelProblems, type Program } from '../ptx/resolve.js';
import { LaunchSetupError, runToEnd, type RanToEnd } from '../exec/run-to-end.js';
import { reportKernelProblems, requireProgramSource, UsageError } from './common.js';
import { threadCount, threadsLine } from './threads.js';
import type { PtxSource } from '../exec/parallel/protocol.js';

// Launch resolution and fault text are the engine's (every front end needs them); re-exported
// here for the subcommands that import them from this module.
export { resolveLaunch, type LaunchFlags } from '../engine/load.js';
export { formatFault } from '../engine/fault.js';
export { threadCount, threadsLine } from './threads.js';

export interface RunCommandOptions extends LaunchFlags {
  out?: string | undefined;
  stats?: boolean;
  print?: boolean;
  schedule?: 'rr' | 'random';
  seed?: number;
  maxSteps?: number;
  /** Threads for independent CTAs (src/exec/parallel/): a count or 'auto' (one per core); default 1. */
  workers?: number | 'auto' | undefined;
}


/** Load the PTX and decide the launch, or report why not and give the exit code (1 bad PTX, 2 bad launch). */
export function loadForLaunch(ptxPath: string, flags: LaunchFlags): { program: Program; launch: Launch; source: PtxSource } | number {
  // to run: only the launched kernel's code is parsed and resolved (its problems: reportKernelProblems)
  const loaded = requireProgramSource(ptxPath, flags.link ?? [], { lazy: true });
  if (!loaded) return 1;
  const { program, source } = loaded;
  try {
    return { program, launch: resolveLaunch(ptxPath, program, flags), source };
  } catch (e) {
    if (e instanceof KernelProblems) {
      reportKernelProblems(ptxPath, program, e);
      return 1;
    }
    if (e instanceof LaunchError || e instanceof UsageError || e instanceof EngineError) {
      process.stderr.write(`ptxdbg: bad launch: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

export function runCommand(ptxPath: string, o: RunCommandOptions): number {
  const loaded = loadForLaunch(ptxPath, o);
  if (typeof loaded === 'number') return loaded;
  const { program, launch, source } = loaded;
  const opts: RunOptions = {
    ...DEFAULT_RUN_OPTIONS,
    schedule: o.schedule ?? 'rr',
    seed: o.seed ?? 1,
    maxSteps: o.maxSteps ?? DEFAULT_RUN_OPTIONS.maxSteps,
    // nothing shows this run's registers: blocks may skip storing dead ones
    deadStores: true,
  };
  let ran: RanToEnd;
  try {
    ran = runToEnd(program, launch, opts, { threads: threadCount(o.workers), source, children: true });
  } catch (e) {
    if (!(e instanceof LaunchSetupError)) throw e;
    process.stderr.write(`ptxdbg: cannot set up the launch: ${e.message}\n`);
    return 2;
  }
  const { machine, result, parallel: par, tree } = ran;
  process.stdout.write(result.stdout);
  if (o.out) {
    try {
      mkdirSync(o.out, { recursive: true });
      for (const b of machine.buffers) {
        const bytes = machine.arena.bank.u8.subarray(b.alloc.base, b.alloc.base + b.count * elemSize(b.type));
        const target = join(o.out, `${b.name}.bin`);
        writeFileSync(target + '.tmp', bytes);
        renameSync(target + '.tmp', target);
      }
      writeFileSync(join(o.out, 'stdout.txt'), result.stdout);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (typeof err.code !== 'string') throw e;
      process.stderr.write(`ptxdbg: cannot write the outputs to ${o.out}: ${err.code === 'ENOTDIR' || err.code === 'EEXIST' ? 'a file of that name is in the way' : err.message}\n`);
      return 2;
    }
  }
  if (o.print) {
    for (const b of machine.buffers) {
      const bytes = machine.arena.bank.u8.subarray(b.alloc.base, b.alloc.base + b.count * elemSize(b.type));
      process.stderr.write(`${b.name} (${b.count} x ${b.type}): ${formatElements(bytes, b.type, 8)}\n`);
    }
  }
  if (o.stats) {
    const s = result.stats;
    const rate = s.wallMs > 0 ? (s.threadInstructions / (s.wallMs / 1000)) : 0;
    if (tree?.grids) process.stderr.write(`child grids: ${tree.grids}\n`);
    if (par) process.stderr.write(`${threadsLine(par)}\n`);
    process.stderr.write(`warp-steps: ${s.warpSteps}\nthread-instructions: ${s.threadInstructions}\nwall time: ${s.wallMs.toFixed(1)} ms\nthread-instructions/s: ${(rate / 1e6).toFixed(1)} M\n`);
  }
  if (machine.firstBrkpt) {
    const n = machine.brkptCount;
    process.stderr.write(`${formatFault(machine.firstBrkpt)}\n  (executed ${n} time${n === 1 ? '' : 's'}; a debugger stops at brkpt and continue passes it: ptxdbg FILE. Without a debugger the PTX ISA says only "suspends execution"; run goes on past it)\n`);
  }
  if (result.fault) {
    process.stderr.write(formatFault(result.fault) + '\n');
    return 3;
  }
  return 0;
}


/** The first `n` elements of a buffer, as C would print them. */
export function formatElements(bytes: Uint8Array, type: ElemType, n: number): string {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = elemSize(type);
  const count = Math.floor(bytes.length / size);
  const out: string[] = [];
  for (let i = 0; i < Math.min(n, count); i++) {
    const o = i * size;
    switch (type) {
      case 'f32': out.push(String(dv.getFloat32(o, true))); break;
      case 'f64': out.push(String(dv.getFloat64(o, true))); break;
      case 's8': out.push(String(dv.getInt8(o))); break;
      case 'u8': out.push(String(dv.getUint8(o))); break;
      case 's16': out.push(String(dv.getInt16(o, true))); break;
      case 'u16': case 'f16': out.push(String(dv.getUint16(o, true))); break;
      case 's32': out.push(String(dv.getInt32(o, true))); break;
      case 'u32': out.push(String(dv.getUint32(o, true))); break;
      case 's64': out.push(String(dv.getBigInt64(o, true))); break;
      default: out.push(String(dv.getBigUint64(o, true)));
    }
  }
  return `{${out.join(', ')}${count > n ? ', ...' : ''}}`;
}
