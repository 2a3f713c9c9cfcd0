/**
 * The device runtime of dynamic parallelism (CUDA programming guide, "CUDA Dynamic Parallelism",
 * device-side API): the calls a kernel compiled with -rdc makes as extern functions. Child-grid
 * launches are queued on the Machine (src/exec/children.ts says when they run); device-side
 * streams and events are handles that order nothing more than that schedule already does; memory,
 * copy, set, query and error calls are executed. A call that cannot be (device-side
 * cudaDeviceSynchronize, graph launches) is an 'unsupported' fault that names it.
 */
import { Access } from './probe.js';
import type { CallInfo } from './compiled.js';
import { Fault, type FaultKind } from './fault.js';
import { FUNC_HI, GLOBAL_HI, Space } from './memory.js';
import type { Machine } from './machine.js';
import { localWritten, type Warp } from './state.js';
import { coordsOf } from './launch.js';
import { childOrder, MAX_NESTING, MAX_PENDING, runGrids, TAIL_LAUNCH_STREAM, type Dim3 } from './children.js';
import { DEVICE_LIMITS } from '../ptx/device-limits.js';

/** cudaError_t values (driver_types.h). */
const CUDA_SUCCESS = 0;
const CUDA_ERROR_INVALID_VALUE = 1;
const CUDA_ERROR_MEMORY_ALLOCATION = 2;
const CUDA_ERROR_INVALID_CONFIGURATION = 9;
const CUDA_ERROR_INVALID_DEVICE_FUNCTION = 98;
const CUDA_ERROR_LAUNCH_MAX_DEPTH_EXCEEDED = 65;
const CUDA_ERROR_LAUNCH_PENDING_COUNT_EXCEEDED = 69;

/** Device-runtime calls ptxdbg does not execute: a fault names the call and what it does. */
const NOT_MODELLED: ReadonlyMap<string, string> = new Map([
  ['cudaGraphLaunch', 'launches a CUDA graph from the device'],
  ['cudaMemcpy2DAsync', 'copies a 2D region on a device-side stream'],
  ['cudaMemcpy3DAsync', 'copies a 3D region on a device-side stream'],
  ['cudaMemset2DAsync', 'sets a 2D region on a device-side stream'],
  ['cudaMemset3DAsync', 'sets a 3D region on a device-side stream'],
  ['cudaGetErrorString', 'returns the text of an error code'],
  ['cudaGetErrorName', 'returns the name of an error code'],
  ['cudaDeviceGetAttribute', 'queries a device attribute'],
  ['cudaDeviceGetLimit', 'queries a device limit'],
  ['cudaDeviceGetCacheConfig', 'queries the cache configuration'],
  ['cudaDeviceGetSharedMemConfig', 'queries the shared memory configuration'],
  ['cudaFuncGetAttributes', 'queries kernel attributes'],
  ['cudaOccupancyMaxActiveBlocksPerMultiprocessor', 'queries occupancy'],
  ['cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags', 'queries occupancy'],
]);

/** CUDA 12 (CDP2) spells the device runtime `__cudaCDP2<Name>`: the same calls. */
function cdp2(name: string): string {
  const plain = name.startsWith('__cudaCDP2') ? `cuda${name.slice('__cudaCDP2'.length)}` : name;
  // per-thread default stream variants take the same arguments
  return plain.endsWith('_ptsz') ? plain.slice(0, -'_ptsz'.length) : plain;
}

type Ref = CallInfo['args'][number] | undefined;

function words(w: Warp, ref: Ref, lane: number): [number, number] {
  if (!ref) return [0, 0];
  if (ref.kind === 'reg') return [w.frame.u32[ref.base + 2 * lane]!, w.frame.u32[ref.base + 2 * lane + 1]!];
  const dv = new DataView(w.local.u8.buffer);
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  return [dv.getUint32(idx, true), ref.size >= 8 ? dv.getUint32(idx + 4, true) : 0];
}

/** Word `k` of an aggregate argument (a dim3). */
function word(w: Warp, ref: Ref, lane: number, k: number): number {
  if (!ref) return 0;
  if (ref.kind === 'reg') return k < 2 ? w.frame.u32[ref.base + 2 * lane + k]! : 0;
  const dv = new DataView(w.local.u8.buffer);
  return dv.getUint32(lane * w.localStride + w.frame.localBase + ref.offset + 4 * k, true);
}

function dim3(w: Warp, ref: Ref, lane: number): Dim3 {
  return [word(w, ref, lane, 0), word(w, ref, lane, 1), word(w, ref, lane, 2)];
}

function setRet(w: Warp, ref: CallInfo['rets'][number] | undefined, lane: number, lo: number, hi: number): void {
  if (!ref) return;
  if (ref.kind === 'reg') {
    w.frame.u32[ref.base + 2 * lane] = lo >>> 0;
    w.frame.u32[ref.base + 2 * lane + 1] = hi >>> 0;
    return;
  }
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  localWritten(w, lane, w.frame.localBase + ref.offset, ref.size >= 8 ? 8 : 4);
  const dv = new DataView(w.local.u8.buffer);
  dv.setUint32(idx, lo >>> 0, true);
  if (ref.size >= 8) dv.setUint32(idx + 4, hi >>> 0, true);
}

function setStatus(w: Warp, ref: CallInfo['rets'][number] | undefined, lane: number, status: number): void {
  setRet(w, ref, lane, status, 0);
}

/** Store `size` bytes (4 or 8) of `lo:hi` at the generic address `plo:phi` for `lane`. */
function store(w: Warp, plo: number, phi: number, lane: number, size: 4 | 8, lo: number, hi: number): void {
  const idx = w.translate(Space.Generic, plo >>> 0, phi, size, lane, Access.Write);
  const dv = new DataView(w.xbank.u8.buffer);
  dv.setUint32(idx, lo >>> 0, true);
  if (size === 8) dv.setUint32(idx + 4, hi >>> 0, true);
}

/** Arena offset of lane `l`'s last-error word, or -1 when the grid keeps none. */
function errorSlot(m: Machine, w: Warp, l: number): number {
  return m.lastErrors ? m.lastErrors + 4 * (w.cta.id * m.nthreads + w.tidBase + l) : -1;
}

function lastError(m: Machine, w: Warp, l: number): number {
  const at = errorSlot(m, w, l);
  return at < 0 ? CUDA_SUCCESS : new DataView(m.arena.bank.u8.buffer).getUint32(at, true);
}

function setLastError(m: Machine, w: Warp, l: number, code: number): void {
  const at = errorSlot(m, w, l);
  if (at < 0) return;
  new DataView(m.arena.bank.u8.buffer).setUint32(at, code, true);
  m.arena.bank.touch(at, 4);
}

/** The 64-bit value of an argument. */
function u64(w: Warp, ref: Ref, lane: number): bigint {
  const [lo, hi] = words(w, ref, lane);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Arena offset of a global pointer to `bytes` bytes, or undefined when it is not one. */
function globalRange(m: Machine, p: bigint, bytes: number): number | undefined {
  if (p >> 32n !== BigInt(GLOBAL_HI)) return undefined;
  const off = Number(p & 0xffffffffn);
  return off + bytes <= m.arena.bank.size ? off : undefined;
}

/** Why a child launch of `kernel` with this configuration is refused (a cudaError_t), or 0. */
function launchError(m: Machine, kernel: string | undefined, grid: Dim3, block: Dim3, shared: number): number {
  const f = kernel === undefined ? undefined : m.program.functions.get(kernel);
  if (!f || !f.isEntry) return CUDA_ERROR_INVALID_DEVICE_FUNCTION;
  const L = DEVICE_LIMITS;
  if (grid.some((d) => d < 1) || block.some((d) => d < 1) || grid[1] > L.gridDim[1] || grid[2] > L.gridDim[2]) return CUDA_ERROR_INVALID_CONFIGURATION;
  if (block[0] * block[1] * block[2] > L.threadsPerBlock || block[2] > L.blockDim[2] || shared > L.sharedPerBlock) return CUDA_ERROR_INVALID_CONFIGURATION;
  if ((m.launch.depth ?? 0) + 1 >= MAX_NESTING) return CUDA_ERROR_LAUNCH_MAX_DEPTH_EXCEEDED;
  if (m.children.size >= MAX_PENDING) return CUDA_ERROR_LAUNCH_PENDING_COUNT_EXCEEDED;
  return 0;
}

/** Bytes of `kernel`'s parameters (the parameter buffer cudaGetParameterBufferV2 hands out). */
function paramBytes(m: Machine, kernel: string): number {
  let n = 0;
  for (const p of m.program.functions.get(kernel)?.params ?? []) n = Math.max(n, p.frameOffset + p.size);
  return n;
}

/** The kernel a function "address" names (`mov.u64 %rd, kernel`), if it is one. */
function kernelAt(m: Machine, p: bigint): string | undefined {
  if (p >> 32n !== BigInt(FUNC_HI)) return undefined;
  return m.funcNames[Number(p & 0xffffffffn)];
}

/** Queue child grid `kernel` launched by lane `l` of `w`, its parameters at arena offset `buffer`. */
function queueChild(m: Machine, w: Warp, l: number, kernel: string, buffer: number, grid: Dim3, block: Dim3, sharedBytes: number, stream: bigint): void {
  const size = paramBytes(m, kernel);
  m.children.set(buffer, {
    kernel, grid, block, sharedBytes, buffer, tail: stream === TAIL_LAUNCH_STREAM,
    params: m.arena.bank.u8.slice(buffer, buffer + size),
    by: { block: [...w.cta.ctaid], thread: coordsOf(w.tidBase + l, m.launch.block) },
  });
}

/** Runs a device-runtime call; false when `name` is not one. */
export function deviceRuntimeCall(m: Machine, w: Warp, name: string, info: CallInfo, lanes: number): boolean {
  const each = (f: (l: number) => void): void => {
    for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1) f(l);
  };
  const arg = info.args;
  const ok = (l: number): void => setStatus(w, info.rets[0], l, CUDA_SUCCESS);
  // a failing call returns its error and leaves it as the thread's last error (cudaGetLastError)
  const status = (l: number, code: number): void => {
    if (code !== CUDA_SUCCESS) setLastError(m, w, l, code);
    setStatus(w, info.rets[0], l, code);
  };
  // CUDA 12's CDP2 device runtime spells each call __cudaCDP2<Name> (cuda_device_runtime_api.h)
  switch (cdp2(name)) {
    case 'cudaGetLastError': case 'cudaPeekAtLastError':
      each((l) => {
        setStatus(w, info.rets[0], l, lastError(m, w, l));
        if (cdp2(name) === 'cudaGetLastError') setLastError(m, w, l, CUDA_SUCCESS);
      });
      return true;
    case 'cudaGetDevice': case 'cudaGetDeviceCount':
      each((l) => {
        const [plo, phi] = words(w, arg[0], l);
        store(w, plo, phi, l, 4, name.endsWith('Count') ? 1 : 0, 0); // one device, ordinal 0
        ok(l);
      });
      return true;
    case 'cudaRuntimeGetVersion':
      each((l) => {
        const [plo, phi] = words(w, arg[0], l);
        store(w, plo, phi, l, 4, 13000, 0);
        ok(l);
      });
      return true;
    case 'cudaMalloc':
      each((l) => {
        const [plo, phi] = words(w, arg[0], l);
        const [nlo, nhi] = words(w, arg[1], l);
        const size = nhi * 4294967296 + nlo;
        const off = m.arena.malloc(size);
        store(w, plo, phi, l, 8, off, off ? GLOBAL_HI : 0);
        status(l, off ? CUDA_SUCCESS : CUDA_ERROR_MEMORY_ALLOCATION);
      });
      return true;
    case 'cudaFree':
      each((l) => {
        const [lo, hi] = words(w, arg[0], l);
        const freed = (lo === 0 && hi === 0) || (hi === GLOBAL_HI && m.arena.free(lo));
        status(l, freed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
      });
      return true;
    case 'cudaGetParameterBuffer':
      // (alignment, size): a heap block the launching thread fills, then cudaLaunchDevice
      each((l) => {
        const [nlo, nhi] = words(w, arg[1], l);
        const off = m.arena.malloc(Math.max(16, nhi * 4294967296 + nlo));
        setRet(w, info.rets[0], l, off, off ? GLOBAL_HI : 0);
      });
      return true;
    case 'cudaGetParameterBufferV2':
      // (func, grid, block, shared): the launch is described here, cudaLaunchDeviceV2 starts it;
      // a refused configuration gives NULL, which the caller tests before filling the buffer
      each((l) => {
        const kernel = kernelAt(m, u64(w, arg[0], l));
        const grid = dim3(w, arg[1], l), block = dim3(w, arg[2], l);
        const shared = word(w, arg[3], l, 0);
        let off = 0;
        let code = launchError(m, kernel, grid, block, shared);
        if (code === 0) {
          off = m.arena.malloc(Math.max(16, paramBytes(m, kernel!)));
          if (off) m.paramBuffers.set(off, { kernel: kernel!, grid, block, sharedBytes: shared });
          else code = CUDA_ERROR_MEMORY_ALLOCATION;
        }
        if (code !== 0) setLastError(m, w, l, code);
        setRet(w, info.rets[0], l, off, off ? GLOBAL_HI : 0);
      });
      return true;
    case 'cudaLaunchDevice':
      // (func, buffer, grid, block, shared, stream)
      each((l) => {
        const kernel = kernelAt(m, u64(w, arg[0], l));
        const buffer = globalRange(m, u64(w, arg[1], l), 0);
        const grid = dim3(w, arg[2], l), block = dim3(w, arg[3], l);
        const shared = word(w, arg[4], l, 0);
        const code = buffer === undefined ? CUDA_ERROR_INVALID_VALUE : launchError(m, kernel, grid, block, shared);
        if (code === 0) queueChild(m, w, l, kernel!, buffer!, grid, block, shared, u64(w, arg[5], l));
        status(l, code);
      });
      return true;
    case 'cudaLaunchDeviceV2':
      // (buffer, stream): the buffer cudaGetParameterBufferV2 gave, now filled
      each((l) => {
        const buffer = globalRange(m, u64(w, arg[0], l), 0);
        const d = buffer === undefined ? undefined : m.paramBuffers.get(buffer);
        const code = d === undefined ? CUDA_ERROR_INVALID_VALUE : launchError(m, d.kernel, d.grid, d.block, d.sharedBytes);
        if (code === 0) queueChild(m, w, l, d!.kernel, buffer!, d!.grid, d!.block, d!.sharedBytes, u64(w, arg[1], l));
        status(l, code);
      });
      return true;
    case 'cudaStreamCreateWithFlags': case 'cudaEventCreateWithFlags':
      // a handle; ordering comes from the schedule of children.ts, which serializes all work
      each((l) => {
        const [plo, phi] = words(w, arg[0], l);
        // a heap block is the handle: a unique address, and checkpoints restore the heap on replay
        const h = m.arena.malloc(16);
        store(w, plo, phi, l, 8, h, h ? GLOBAL_HI : 0);
        status(l, h ? CUDA_SUCCESS : CUDA_ERROR_MEMORY_ALLOCATION);
      });
      return true;
    case 'cudaStreamDestroy': case 'cudaEventDestroy':
      each((l) => {
        const [lo, hi] = words(w, arg[0], l);
        if (hi === GLOBAL_HI) m.arena.free(lo);
        ok(l);
      });
      return true;
    case 'cudaEventRecord': case 'cudaEventRecordWithFlags': case 'cudaStreamWaitEvent':
      each(ok);
      return true;
    case 'cudaMemcpyAsync': case 'cudaMemsetAsync': {
      // device-to-device, done at the call: no earlier work of the stream can still be pending
      // unless it is a child grid, which the parent cannot have waited for either
      const copy = cdp2(name) === 'cudaMemcpyAsync';
      each((l) => {
        const [nlo, nhi] = words(w, arg[2], l);
        const n = nhi !== 0 ? -1 : nlo;
        const dst = n < 0 ? undefined : globalRange(m, u64(w, arg[0], l), n);
        const src = copy && n >= 0 ? globalRange(m, u64(w, arg[1], l), n) : 0;
        if (dst === undefined || src === undefined) { status(l, CUDA_ERROR_INVALID_VALUE); return; }
        const u8 = m.arena.bank.u8;
        if (copy) u8.copyWithin(dst, src!, src! + n);
        else u8.fill(word(w, arg[1], l, 0) & 255, dst, dst + n);
        m.arena.bank.touch(dst, n);
        ok(l);
      });
      return true;
    }
    case 'cudaDeviceSynchronize': {
      // CDP1 (sm_80 with CUDA_FORCE_CDP1_IF_SUPPORTED): the caller waits for every grid its block
      // launched so far, so they run now, each with its descendants, in this grid's memory
      const [bx, by, bz] = w.cta.ctaid;
      const mine = childOrder(m).filter((c) => c.by.block[0] === bx && c.by.block[1] === by && c.by.block[2] === bz);
      for (const c of mine) m.children.delete(c.buffer);
      const tree = runGrids(m, mine, (child) => { child.run(); });
      m.stdout += tree.stdout;
      if (tree.fault) {
        // a fault in a child ends the context, and with it the waiting parent
        const f = new Fault(tree.fault.kind as FaultKind, `${tree.fault.message} (${tree.fault.hints?.[0] ?? 'in a child grid'}, awaited by cudaDeviceSynchronize)`);
        f.lane = lanes === 0 ? -1 : 31 - Math.clz32(lanes & -lanes);
        throw f;
      }
      each(ok);
      return true;
    }
    case 'cudaGraphSetConditional':
      // (handle, value): the value a conditional node of the host's graph reads after this kernel.
      // The ptxdbg runtime's handle is the address of a device word (src/cudart/conditional.c);
      // racing calls are undefined in CUDA, here the last active lane's value stays
      each((l) => {
        const [lo, hi] = words(w, arg[0], l);
        store(w, lo, hi, l, 4, word(w, arg[1], l, 0), 0);
      });
      return true;
    default: {
      const what = NOT_MODELLED.get(cdp2(name));
      if (what === undefined) return false;
      const f = new Fault('unsupported', `device runtime call '${name}' (${what}) is not supported by ptxdbg`);
      f.lane = lanes === 0 ? -1 : 31 - Math.clz32(lanes & -lanes);
      throw f;
    }
  }
}
