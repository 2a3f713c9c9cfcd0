/**
 * Launch limits a kernel declares: `.maxntid`, `.reqntid`, `.maxnreg`, `.minnctapersm` and the
 * ISA 1.1 `.entry name[NTID.2][NTID.1][NTID.0]` maximum. A launch the hardware would refuse is a
 * LaunchError (exit 2, "bad launch"), checked once before the first instruction runs.
 */
import type { ProgFunction } from '../ptx/resolve.js';
import { LaunchError } from './launch.js';
import { DEVICE_LIMITS } from '../ptx/device-limits.js';

/** sm_80 per-SM resources (CUDA programming guide, compute capability 8.0 table). */
const SM80_REGS_PER_SM = DEVICE_LIMITS.registersPerSm;
const SM80_THREADS_PER_SM = DEVICE_LIMITS.threadsPerSm;
const SM80_CTAS_PER_SM = DEVICE_LIMITS.blocksPerSm;

function product(v: readonly number[]): number {
  return v.reduce((a, b) => a * b, 1);
}

/** Throws a LaunchError naming the directive when `block` violates a limit of `fn`. */
export function checkLaunchLimits(fn: ProgFunction, block: readonly [number, number, number]): void {
  const perf = fn.decl.perf;
  const threads = product(block);
  const shape = block.join('x');
  const req = perf.get('reqntid');
  if (req && req.length > 0) {
    // .reqntid fixes every dimension; omitted trailing dimensions are 1
    const want = [req[0] ?? 1, req[1] ?? 1, req[2] ?? 1];
    if (want.some((w, i) => w !== block[i])) {
      throw new LaunchError(`kernel ${fn.name} requires a block of exactly ${want.join('x')} threads (.reqntid ${req.join(', ')}), the launch gives ${shape}`);
    }
  }
  const max = perf.get('maxntid');
  if (max && max.length > 0 && threads > product(max)) {
    throw new LaunchError(`kernel ${fn.name} allows at most ${product(max)} threads per block (.maxntid ${max.join(', ')}), the launch gives ${shape} = ${threads}`);
  }
  const dims = fn.decl.ctaDims;
  if (dims.length > 0 && dims.every((d) => d > 0)) {
    const limit = [...dims].reverse(); // written outermost first: [NTID.2][NTID.1][NTID.0]
    if (limit.some((d, i) => (block[i] ?? 1) > d) || block.slice(limit.length).some((d) => d !== 1)) {
      throw new LaunchError(`kernel ${fn.name} declares a CTA of at most ${limit.join('x')} threads (.entry ${fn.name}${dims.map((d) => `[${d}]`).join('')}), the launch gives ${shape}`);
    }
  }
  const warps = Math.ceil(threads / 32);
  const maxnreg = perf.get('maxnreg')?.[0];
  if (maxnreg !== undefined && warps * 32 * maxnreg > SM80_REGS_PER_SM) {
    throw new LaunchError(`too many resources requested for launch: ${threads} threads x ${maxnreg} registers (.maxnreg ${maxnreg}) exceed the ${SM80_REGS_PER_SM} registers of an sm_80 SM`);
  }
  const minCtas = perf.get('minnctapersm')?.[0];
  if (minCtas !== undefined && (minCtas > SM80_CTAS_PER_SM || minCtas * warps * 32 > SM80_THREADS_PER_SM)) {
    throw new LaunchError(`kernel ${fn.name} asks for ${minCtas} resident blocks per SM (.minnctapersm ${minCtas}), but ${minCtas} blocks of ${threads} threads exceed an sm_80 SM (${SM80_THREADS_PER_SM} threads, ${SM80_CTAS_PER_SM} blocks)`);
  }
}
