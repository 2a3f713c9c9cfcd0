/**
 * Loading for every front end: the launch decided from a launch file, the `<name>.launch.json`
 * next to the PTX, flags, or the kernel's default; a `.cu` compiled with nvcc; a trace file
 * re-executed and checked.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_SOURCE_BYTES, readBounded, ReadError } from '../io/bounded.js';
import { defaultLaunch, type Launch, parseLaunch, readLaunchFile } from '../exec/launch.js';
import { checkLaunchLimits } from '../exec/limits.js';
import type { Program } from '../ptx/resolve.js';
import { EngineError } from './errors.js';

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
  if (parts.length < 1 || parts.length > 3 || parts.some((x) => !Number.isInteger(x) || x < 1)) throw new EngineError(`--${what} must look like 4 or 4x2 or 4,2,1`, 'bad-launch');
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
        if (!m) throw new EngineError(`--arg ${a}: expected type:value (u32:100), type[count] (f32[1024]) or type[count]@file`, 'bad-launch');
        const [, name, type, count, file, value] = m;
        if (count !== undefined) return { name: name ?? `arg${i}`, type, count: Number(count), ...(file ? { file } : {}) };
        return { name: name ?? `arg${i}`, type, value: Number(value) };
      }),
    };
    return parseLaunch(json, program, process.cwd(), '--arg');
  }
  return base;
}


/**
 * The launch file of a `.cu` (`<name>.launch.json`, else `launch.json`, beside it): its compiled
 * PTX lives in the cache, where the search beside the PTX finds nothing.
 */
export function launchFileBeside(cuPath: string): string | undefined {
  const stem = basename(cuPath).replace(/\.cu$/, '');
  return [join(dirname(cuPath), `${stem}.launch.json`), join(dirname(cuPath), 'launch.json')].find((p) => existsSync(p));
}

/** `kernel.cu`: compile with nvcc -G -ptx into a cache keyed by the source's hash. */
export function compileCuda(cuPath: string, arch: string): string {
  let src: Buffer;
  try {
    src = readBounded(cuPath, MAX_SOURCE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new EngineError(e.message, 'read-failed');
    throw e;
  }
  const probe = spawnSync('nvcc', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new EngineError(`nvcc is not on the PATH, so ${cuPath} cannot be compiled here. Compile it elsewhere with\n  nvcc -G -ptx -arch=${arch} ${basename(cuPath)} -o ${basename(cuPath).replace(/\.cu$/, '.ptx')}\nand open the .ptx file: ptxdbg ${basename(cuPath).replace(/\.cu$/, '.ptx')}`, 'read-failed');
  }
  const key = createHash('sha256').update(src).update(arch).digest('hex').slice(0, 16);
  const cacheRoot = process.env['PTXDBG_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir() || tmpdir(), '.cache'), 'ptxdbg');
  const dir = join(cacheRoot, key);
  const out = join(dir, basename(cuPath).replace(/\.cu$/, '') + '.ptx');
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  const r = spawnSync('nvcc', ['-G', '-ptx', `-arch=${arch}`, resolve(cuPath), '-o', tmp], { encoding: 'utf8', cwd: dirname(resolve(cuPath)) });
  if (r.status !== 0) throw new EngineError(`nvcc failed on ${cuPath}:\n${(r.stderr || r.stdout || String(r.error)).trim()}`, 'bad-ptx');
  renameSync(tmp, out);
  // keep a copy of the source next to the PTX so the Source pane finds it
  writeFileSync(join(dir, basename(cuPath)), src);
  return out;
}


