/**
 * `ptxdbg run`: execute one launch per the conformance contract. stdout carries only the
 * kernel's printf output; reports and statistics go to stderr.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DEFAULT_RUN_OPTIONS, type FaultReport, Machine, type RunOptions } from '../exec/machine.js';
import { defaultLaunch, elemSize, type Launch, LaunchError, parseLaunch, readLaunchFile } from '../exec/launch.js';
import type { Program } from '../ptx/resolve.js';
import { checkLaunchLimits } from '../exec/limits.js';
import { requireProgram, UsageError } from './common.js';

export interface LaunchFlags {
  launch?: string | undefined;
  kernel?: string | undefined;
  grid?: string | undefined;
  block?: string | undefined;
  shared?: number | undefined;
  arg?: readonly string[] | undefined;
  /** Further PTX files linked with the first (`ptxdbg run a.ptx b.ptx`). */
  link?: readonly string[] | undefined;
}

function triple(s: string, what: string): [number, number, number] {
  const parts = s.split(/[x,]/).map((x) => Number(x));
  if (parts.length < 1 || parts.length > 3 || parts.some((x) => !Number.isInteger(x) || x < 1)) throw new UsageError(`--${what} must look like 4 or 4x2 or 4,2,1`);
  return [parts[0]!, parts[1] ?? 1, parts[2] ?? 1];
}

/** Decide the launch: --launch file, <name>.launch.json next to the PTX, flags, or the default. */
export function resolveLaunch(ptxPath: string, program: Program, flags: LaunchFlags): Launch {
  const launch = launchFromFlags(ptxPath, program, flags);
  const fn = program.functions.get(launch.kernel);
  if (fn) checkLaunchLimits(fn, launch.block);
  return launch;
}

function launchFromFlags(ptxPath: string, program: Program, flags: LaunchFlags): Launch {
  let launchPath = flags.launch;
  if (!launchPath && !flags.grid && !flags.block && !flags.arg?.length) {
    const stem = basename(ptxPath).replace(/\.ptx$/, '').replace(/\.(G|O3)$/, '');
    for (const cand of [join(dirname(ptxPath), `${stem}.launch.json`), join(dirname(ptxPath), 'launch.json')]) {
      if (existsSync(cand)) { launchPath = cand; break; }
    }
  }
  if (launchPath) return readLaunchFile(launchPath, program);
  const base = defaultLaunch(program, flags.kernel);
  if (flags.grid) base.grid = triple(flags.grid, 'grid');
  if (flags.block) base.block = triple(flags.block, 'block');
  if (flags.shared !== undefined) base.sharedBytes = flags.shared;
  if (flags.arg?.length) {
    // --arg name=type:value | type[count] | type[count]@file
    const json = {
      kernel: base.kernel, grid: base.grid, block: base.block, sharedBytes: base.sharedBytes,
      args: flags.arg.map((a, i) => {
        const m = /^(?:(\w+)=)?(\w+)(?:\[(\d+)\](?:@(.+))?|:(.+))$/.exec(a);
        if (!m) throw new UsageError(`--arg ${a}: expected type:value (u32:100), type[count] (f32[1024]) or type[count]@file`);
        const [, name, type, count, file, value] = m;
        if (count !== undefined) return { name: name ?? `arg${i}`, type, count: Number(count), ...(file ? { file } : {}) };
        return { name: name ?? `arg${i}`, type, value: Number(value) };
      }),
    };
    return parseLaunch(json, program, process.cwd(), '--arg');
  }
  return base;
}

export function formatFault(f: FaultReport): string {
  const where = f.file ? `${f.file.split('/').pop()}:${f.line}` : `instruction ${f.pc}`;
  const lines = [
    `ptxdbg: ${f.kind === 'assert' ? 'assertion failed' : f.kind}: ${f.message}`,
    f.block ? `  in block (${f.block.join(',')}) thread (${f.thread!.join(',')}), warp ${f.warp} lane ${f.lane}` : '',
    `  at ${where}${f.file ? ` (line ${f.line})` : ''} in ${f.function}, PTX instruction ${f.pc}: ${f.ptx}`,
  ];
  for (const c of f.callers) {
    lines.push(`  called from ${c.file ? `${c.file.split('/').pop()}:${c.line}` : `instruction ${c.pc}`} in ${c.function}`);
  }
  return lines.filter(Boolean).join('\n');
}

export interface RunCommandOptions extends LaunchFlags {
  out?: string | undefined;
  stats?: boolean;
  print?: boolean;
  schedule?: 'rr' | 'random';
  seed?: number;
  maxSteps?: number;
}

/** Load the PTX and decide the launch, or report why not and give the exit code (1 bad PTX, 2 bad launch). */
export function loadForLaunch(ptxPath: string, flags: LaunchFlags): { program: Program; launch: Launch } | number {
  const program = requireProgram(ptxPath, flags.link ?? []);
  if (!program) return 1;
  try {
    return { program, launch: resolveLaunch(ptxPath, program, flags) };
  } catch (e) {
    if (e instanceof LaunchError || e instanceof UsageError) {
      process.stderr.write(`ptxdbg: bad launch: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

export function runCommand(ptxPath: string, o: RunCommandOptions): number {
  const loaded = loadForLaunch(ptxPath, o);
  if (typeof loaded === 'number') return loaded;
  const { program, launch } = loaded;
  const opts: RunOptions = {
    ...DEFAULT_RUN_OPTIONS,
    schedule: o.schedule ?? 'rr',
    seed: o.seed ?? 1,
    maxSteps: o.maxSteps ?? DEFAULT_RUN_OPTIONS.maxSteps,
  };
  let machine: Machine;
  try {
    machine = new Machine(program, launch, opts);
  } catch (e) {
    process.stderr.write(`ptxdbg: cannot set up the launch: ${(e as Error).message}\n`);
    return 2;
  }
  const result = machine.run();
  process.stdout.write(result.stdout);
  if (o.out) {
    mkdirSync(o.out, { recursive: true });
    for (const b of machine.buffers) {
      const bytes = machine.arena.bank.u8.subarray(b.alloc.base, b.alloc.base + b.count * elemSize(b.type as never));
      const target = join(o.out, `${b.name}.bin`);
      writeFileSync(target + '.tmp', bytes);
      renameSync(target + '.tmp', target);
    }
    writeFileSync(join(o.out, 'stdout.txt'), result.stdout);
  }
  if (o.print) {
    for (const b of machine.buffers) {
      const bytes = machine.arena.bank.u8.subarray(b.alloc.base, b.alloc.base + b.count * elemSize(b.type as never));
      process.stderr.write(`${b.name} (${b.count} x ${b.type}): ${formatElements(bytes, b.type, 8)}\n`);
    }
  }
  if (o.stats) {
    const s = result.stats;
    const rate = s.wallMs > 0 ? (s.threadInstructions / (s.wallMs / 1000)) : 0;
    process.stderr.write(`warp-steps: ${s.warpSteps}\nthread-instructions: ${s.threadInstructions}\nwall time: ${s.wallMs.toFixed(1)} ms\nthread-instructions/s: ${(rate / 1e6).toFixed(1)} M\n`);
  }
  if (result.fault) {
    process.stderr.write(formatFault(result.fault) + '\n');
    return 3;
  }
  return 0;
}

/** The first `n` elements of a buffer, as C would print them. */
export function formatElements(bytes: Uint8Array, type: string, n: number): string {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = elemSize(type as never);
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
