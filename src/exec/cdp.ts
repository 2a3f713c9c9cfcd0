/**
 * The device runtime of dynamic parallelism (CUDA programming guide, "CUDA Dynamic Parallelism",
 * device-side API): the calls a kernel compiled with -rdc makes as extern functions. The memory
 * and error calls are executed; child-grid launches and streams/events are not modelled, and a
 * call to one is an 'unsupported' fault that names it (never an unexplained bad-call).
 */
import { Access } from './probe.js';
import type { CallInfo } from './compiled.js';
import { Fault } from './fault.js';
import { GLOBAL_HI, Space } from './memory.js';
import type { Machine } from './machine.js';
import { localWritten, type Warp } from './state.js';

/** cudaError_t values (driver_types.h). */
const CUDA_SUCCESS = 0;
const CUDA_ERROR_INVALID_VALUE = 1;
const CUDA_ERROR_MEMORY_ALLOCATION = 2;

/** Device-runtime calls that need child grids, streams or events: named in a fault. */
const NOT_MODELLED: ReadonlyMap<string, string> = new Map([
  ['cudaGetParameterBuffer', 'allocates the parameter buffer of a device-side kernel launch'],
  ['cudaGetParameterBufferV2', 'allocates the parameter buffer of a device-side kernel launch'],
  ['cudaLaunchDevice', 'launches a child grid (dynamic parallelism)'],
  ['cudaLaunchDeviceV2', 'launches a child grid (dynamic parallelism)'],
  ['cudaDeviceSynchronize', 'waits for child grids (CDP1; removed from device code in CUDA 12)'],
  ['cudaStreamCreateWithFlags', 'creates a device-side stream'],
  ['cudaStreamDestroy', 'destroys a device-side stream'],
  ['cudaEventCreateWithFlags', 'creates a device-side event'],
  ['cudaEventRecord', 'records a device-side event'],
  ['cudaEventRecordWithFlags', 'records a device-side event'],
  ['cudaEventDestroy', 'destroys a device-side event'],
  ['cudaStreamWaitEvent', 'orders a device-side stream after an event'],
  ['cudaGraphLaunch', 'launches a CUDA graph from the device'],
  ['cudaMemcpyAsync', 'copies memory on a device-side stream'],
  ['cudaMemsetAsync', 'sets memory on a device-side stream'],
  ['cudaGetErrorString', 'returns the text of an error code'],
  ['cudaDeviceGetAttribute', 'queries a device attribute'],
  ['cudaFuncGetAttributes', 'queries kernel attributes'],
  ['cudaOccupancyMaxActiveBlocksPerMultiprocessor', 'queries occupancy'],
  ['cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags', 'queries occupancy'],
]);

/** CUDA 12 (CDP2) spells the device runtime `__cudaCDP2<Name>`: the same calls. */
function cdp2(name: string): string {
  return name.startsWith('__cudaCDP2') ? `cuda${name.slice('__cudaCDP2'.length)}` : name;
}

type Ref = CallInfo['args'][number] | undefined;

function words(w: Warp, ref: Ref, lane: number): [number, number] {
  if (!ref) return [0, 0];
  if (ref.kind === 'reg') return [w.frame.u32[ref.base + 2 * lane]!, w.frame.u32[ref.base + 2 * lane + 1]!];
  const dv = new DataView(w.local.u8.buffer);
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  return [dv.getUint32(idx, true), ref.size >= 8 ? dv.getUint32(idx + 4, true) : 0];
}

function setStatus(w: Warp, ref: CallInfo['rets'][number] | undefined, lane: number, status: number): void {
  if (!ref) return;
  if (ref.kind === 'reg') {
    w.frame.u32[ref.base + 2 * lane] = status;
    w.frame.u32[ref.base + 2 * lane + 1] = 0;
    return;
  }
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  localWritten(w, lane, w.frame.localBase + ref.offset, ref.size >= 8 ? 8 : 4);
  const dv = new DataView(w.local.u8.buffer);
  dv.setUint32(idx, status, true);
  if (ref.size >= 8) dv.setUint32(idx + 4, 0, true);
}

/** Store `size` bytes (4 or 8) of `lo:hi` at the generic address `plo:phi` for `lane`. */
function store(w: Warp, plo: number, phi: number, lane: number, size: 4 | 8, lo: number, hi: number): void {
  const idx = w.translate(Space.Generic, plo >>> 0, phi, size, lane, Access.Write);
  const dv = new DataView(w.xbank.u8.buffer);
  dv.setUint32(idx, lo >>> 0, true);
  if (size === 8) dv.setUint32(idx + 4, hi >>> 0, true);
}

/** Runs a device-runtime call; false when `name` is not one. */
export function deviceRuntimeCall(m: Machine, w: Warp, name: string, info: CallInfo, lanes: number): boolean {
  const each = (f: (l: number) => void): void => {
    for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1) f(l);
  };
  switch (name) {
    case 'cudaGetLastError': case '__cudaCDP2GetLastError':
    case 'cudaPeekAtLastError': case '__cudaCDP2PeekAtLastError':
      each((l) => setStatus(w, info.rets[0], l, CUDA_SUCCESS));
      return true;
    case 'cudaGetDevice': case '__cudaCDP2GetDevice':
      each((l) => {
        const [plo, phi] = words(w, info.args[0], l);
        store(w, plo, phi, l, 4, 0, 0); // one device, ordinal 0
        setStatus(w, info.rets[0], l, CUDA_SUCCESS);
      });
      return true;
    // CUDA 12's CDP2 device runtime names (what -rdc code calls through cuda_device_runtime_api.h)
    case 'cudaMalloc': case '__cudaCDP2Malloc':
      each((l) => {
        const [plo, phi] = words(w, info.args[0], l);
        const [nlo, nhi] = words(w, info.args[1], l);
        const size = nhi * 4294967296 + nlo;
        const off = size > 0x7fffffff ? 0 : m.arena.malloc(size);
        store(w, plo, phi, l, 8, off, off ? GLOBAL_HI : 0);
        setStatus(w, info.rets[0], l, off ? CUDA_SUCCESS : CUDA_ERROR_MEMORY_ALLOCATION);
      });
      return true;
    case 'cudaFree': case '__cudaCDP2Free':
      each((l) => {
        const [lo, hi] = words(w, info.args[0], l);
        const ok = (lo === 0 && hi === 0) || (hi === GLOBAL_HI && m.arena.free(lo));
        setStatus(w, info.rets[0], l, ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
      });
      return true;
    case 'cudaGraphSetConditional':
      // sets the value a conditional node of the host's CUDA graph reads after this kernel: it
      // changes nothing in this grid, so running the kernel alone it has no effect
      return true;
    default: {
      const what = NOT_MODELLED.get(cdp2(name));
      if (what === undefined) return false;
      const f = new Fault('unsupported', `device runtime call '${name}' (${what}) is not supported: ptxdbg runs one grid and does not model dynamic parallelism`);
      f.lane = lanes === 0 ? -1 : 31 - Math.clz32(lanes & -lanes);
      throw f;
    }
  }
}
