/**
 * Serves one program's CUDA runtime (src/cudart) over its socket: memory calls go to the Device,
 * launches to the caller's handler (which may run the kernel, check it, or open the debugger on
 * it while the program waits). Requests are handled one at a time, in order.
 */
import { closeSync, fstatSync, openSync, readlinkSync, readSync, writeSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { type Device, type LaunchRequest } from './device.js';
import { CUDA, CudaError } from './errors.js';
import { IO_CHUNK, MappedRanges } from './mapped.js';
import { Fields, FrameReader, Op, PROTOCOL_VERSION, ProtocolError, reply } from './protocol.js';
import { readFrames, type RawFrame } from './backtrace.js';

export interface LaunchOutcome {
  /** cudaSuccess or the error the launch returns to the program. */
  status: number;
  /** The kernel's printf output (the program writes it to its stdout). */
  stdout: string;
}

export type LaunchHandler = (r: LaunchRequest) => LaunchOutcome | Promise<LaunchOutcome>;

/** A failed CUDA call the runtime reports under `ptxdbg sanitize` (compute-sanitizer's API errors). */
export interface ApiErrorReport { code: number; api: string; name: string; text: string; frames: RawFrame[] }

/** What the runtime tells `ptxdbg sanitize` besides requests: failed calls, where allocations were made. */
export interface SanitizeHooks {
  apiError(e: ApiErrorReport): void;
  allocSite(ptr: bigint, frames: RawFrame[]): void;
  /** Whole-program recording: the host frames and API function of the request that follows (Op.Site). */
  site?(frames: RawFrame[], api: string): void;
  /** Whole-program recording: a request that changed device memory, after it succeeded (before its reply). */
  hostEvent?(e: HostOp): void;
}

/**
 * A host request that changed device memory, as served: `dst` a device address (the window's, or
 * a module's constant bank), `n` its bytes. `write`: bytes from the host (cudaMemcpy to the device,
 * through the socket or the bulk-copy file, or host-visible pages synced in); `copy`: device to
 * device from `src`; `set`: `value` in every byte; `malloc`/`free`: an allocation made (zeroed) or
 * released; `read`: device to host (no change, kept so the timeline shows the copy back); `reset`.
 */
export type HostOp =
  | { op: 'write' | 'sync-in'; dst: bigint; n: number }
  | { op: 'read'; src: bigint; n: number }
  | { op: 'copy'; dst: bigint; src: bigint; n: number }
  | { op: 'set'; dst: bigint; n: number; value: number }
  | { op: 'malloc'; dst: bigint; n: number; kind: 'device' | 'managed' | 'host' }
  | { op: 'free'; dst: bigint }
  | { op: 'reset' };

const OP_NAMES: Record<number, string> = {
  [Op.Module]: '__cudaRegisterFatBinary', [Op.Malloc]: 'cudaMalloc', [Op.Free]: 'cudaFree', [Op.Write]: 'cudaMemcpy (to the device)',
  [Op.Read]: 'cudaMemcpy (from the device)', [Op.Copy]: 'cudaMemcpy (device to device)', [Op.Set]: 'cudaMemset',
  [Op.Symbol]: 'a device symbol', [Op.Kernel]: 'a kernel', [Op.Launch]: 'a launch', [Op.Reset]: 'cudaDeviceReset', [Op.Image]: 'cudaCreateTextureObject',
  [Op.Hello]: 'the runtime\'s hello', [Op.Map]: 'cudaMallocHost (sharing it)', [Op.SyncIn]: 'a launch (host-visible memory in)', [Op.SyncOut]: 'a launch (host-visible memory out)', [Op.BulkWrite]: 'cudaMemcpy (to the device, through the bulk-copy file)', [Op.BulkRead]: 'cudaMemcpy (from the device, through the bulk-copy file)', [Op.Site]: 'a call site',
};

/** An error of a file operation (it has an errno code), not a bug. */
const isIoError = (e: unknown): boolean => typeof (e as NodeJS.ErrnoException).code === 'string';

/**
 * A memory file of the runtime's (its bulk-copy file, or a shared host allocation's), descriptor
 * `fd` of process `pid`, opened through /proc: it must be a memfd, which is all the runtime sends;
 * a pipe, a socket, a directory, a disk file or a closed descriptor is refused. Undefined when
 * /proc cannot be used here (the runtime then copies through the socket).
 */
function openMemoryFile(pid: number | undefined, fd: number): number | undefined {
  if (pid === undefined) return undefined;
  const path = `/proc/${pid}/fd/${fd}`;
  let target: string;
  try {
    target = readlinkSync(path);
  } catch (e) {
    if (!isIoError(e)) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CudaError(CUDA.invalidValue, `file descriptor ${fd} is not open in the program`);
    return undefined;
  }
  if (!target.startsWith('/memfd:')) throw new CudaError(CUDA.invalidValue, `file descriptor ${fd} (${target}) is not one of the runtime's memory files`);
  let file: number;
  try {
    file = openSync(path, 'r+');
  } catch (e) {
    if (!isIoError(e)) throw e;
    return undefined;
  }
  if (!fstatSync(file).isFile()) {
    closeSync(file);
    throw new CudaError(CUDA.invalidValue, `file descriptor ${fd} is not a memory file`);
  }
  return file;
}

const u32s = (...v: number[]): Uint8Array => new Uint8Array(Uint32Array.from(v).buffer);
function u64s(...v: bigint[]): Uint8Array {
  const b = new Uint8Array(8 * v.length);
  const dv = new DataView(b.buffer);
  v.forEach((x, i) => dv.setBigUint64(8 * i, BigInt.asUintN(64, x), true));
  return b;
}

/** Serve until the program closes its end; resolves then. */
export function serveProgram(socket: Duplex, device: Device, app: string, onLaunch: LaunchHandler, say: (line: string) => void, pid?: number,
  hooks?: SanitizeHooks): Promise<void> {
  const reader = new FrameReader();
  // the runtime's bulk-copy file, opened once through /proc (undefined when it cannot be)
  const bulkFds = new Map<number, number | undefined>();
  const bulkFile = (fd: number): number | undefined => {
    if (!bulkFds.has(fd)) bulkFds.set(fd, openMemoryFile(pid, fd));
    return bulkFds.get(fd);
  };
  // host-visible allocations shared through their own memory files
  const mapped = new MappedRanges(device);
  const closeFiles = (): void => {
    for (const file of bulkFds.values()) if (file !== undefined) closeSync(file);
    bulkFds.clear();
    mapped.clear();
  };
  let busy = false;
  let closed = false;
  // a frame that cannot be right ended the connection: what the program still sends is dropped
  let broken = false;
  return new Promise((done, fail) => {
    const pump = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        while (!closed) {
          const f = reader.next();
          if (!f) break;
          const out = await handle(f.op, f.payload);
          if (!closed) for (const part of out) socket.write(part);
        }
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e;
        // the stream cannot be cut into frames any more: the program gets an error for this
        // request, then finds the connection closed at its next call
        say(`ptxdbg: ${e.message}; closing the connection`);
        broken = true;
        if (!closed) socket.end(Buffer.concat(reply(CUDA.invalidValue)));
      } finally {
        busy = false;
      }
    };
    const handle = async (op: number, payload: Uint8Array): Promise<Uint8Array[]> => {
      const f = new Fields(payload);
      try {
        switch (op) {
          case Op.Hello: device.connected = true; return reply(0, u32s(PROTOCOL_VERSION));
          case Op.Module: return reply(0, u32s(device.addModule(payload, app)));
          case Op.Malloc: {
            // any size_t: one the device cannot hold is cudaErrorMemoryAllocation, not a broken wire
            const size = f.u64();
            const kind = f.u32();
            const k = kind === 0 ? 'device' : kind === 1 ? 'managed' : 'host';
            const ptr = device.malloc(size, k);
            hooks?.hostEvent?.({ op: 'malloc', dst: ptr, n: Number(size), kind: k });
            return reply(0, u64s(ptr));
          }
          case Op.Free: { const ptr = f.u64(); device.free(ptr); mapped.unmap(ptr); hooks?.hostEvent?.({ op: 'free', dst: ptr }); return reply(0); }
          case Op.Write: { const dst = f.u64(); const bytes = f.rest(); device.write(dst, bytes); hooks?.hostEvent?.({ op: 'write', dst, n: bytes.length }); return reply(0); }
          case Op.Read: { const src = f.u64(); const n = f.size(); const out = device.read(src, n); hooks?.hostEvent?.({ op: 'read', src, n }); return reply(0, out); }
          case Op.Copy: { const dst = f.u64(); const src = f.u64(); const n = f.size(); device.copy(dst, src, n); hooks?.hostEvent?.({ op: 'copy', dst, src, n }); return reply(0); }
          case Op.Set: { const dst = f.u64(); const n = f.size(); const value = f.u32(); device.set(dst, value, n); hooks?.hostEvent?.({ op: 'set', dst, n, value: value & 255 }); return reply(0); }
          case Op.Symbol: {
            const module = f.u32();
            const s = device.symbol(module, f.text());
            return reply(0, u64s(s.address, BigInt(s.size)));
          }
          case Op.Kernel: {
            const module = f.u32();
            const k = device.kernelInfo(module, f.text());
            return reply(0, u32s(k.params.length, k.paramBytes, k.staticShared, ...k.params.flatMap((p) => [p.offset, p.size])));
          }
          case Op.Launch: {
            const [module, gx, gy, gz, bx, by, bz, shmem, flags, nameLen, paramLen] = Array.from({ length: 12 }, () => f.u32());
            const kernel = f.text(nameLen!);
            const params = f.bytes(paramLen!).slice();
            // under sanitize, the host backtrace of the launch follows
            const hostFrames = readFrames(f);
            const r: LaunchRequest = { module: module!, kernel, grid: [gx!, gy!, gz!], block: [bx!, by!, bz!], sharedBytes: shmem!, params, cooperative: (flags! & 1) !== 0, hostFrames };
            const o = await onLaunch(r);
            return reply(o.status, new TextEncoder().encode(o.stdout));
          }
          case Op.BulkWrite: case Op.BulkRead: {
            const ptr = f.u64();
            const n = f.size();
            const file = bulkFile(f.u32());
            if (file === undefined) return reply(CUDA.notSupported);
            const view = device.view(ptr, n);
            const held = fstatSync(file).size;
            if (op === Op.BulkWrite && held < n) throw new CudaError(CUDA.invalidValue, `the bulk-copy file holds ${held} bytes, not ${n}`);
            // the runtime's shared memory file holds the bytes at offset 0
            try {
              for (let done = 0; done < n;) {
                // at most IO_CHUNK a call (a copy of 3 GB is several)
                const len = Math.min(n - done, IO_CHUNK);
                const k = op === Op.BulkWrite ? readSync(file, view, done, len, done) : writeSync(file, view, done, len, done);
                if (k <= 0) return reply(CUDA.notSupported);
                done += k;
              }
            } catch (e) {
              if (!isIoError(e)) throw e;
              throw new CudaError(CUDA.invalidValue, `the bulk-copy file: ${(e as Error).message}`);
            }
            if (op === Op.BulkWrite) device.written(ptr, n);
            hooks?.hostEvent?.(op === Op.BulkWrite ? { op: 'write', dst: ptr, n } : { op: 'read', src: ptr, n });
            return reply(0);
          }
          case Op.Reset: device.reset(); mapped.clear(); hooks?.hostEvent?.({ op: 'reset' }); return reply(0);
          case Op.Site: { const frames = readFrames(f); hooks?.site?.(frames, f.text()); return reply(0); }
          case Op.ApiError: {
            const code = f.u32();
            const frames = readFrames(f);
            const [api = '', name = '', text = ''] = f.text().split('\0');
            hooks?.apiError({ code, api, name, text, frames });
            return reply(0);
          }
          case Op.AllocSite: {
            const ptr = f.u64();
            hooks?.allocSite(ptr, readFrames(f));
            return reply(0);
          }
          case Op.MemInfo: { const m = device.memInfo(); return reply(0, u64s(BigInt(m.free), BigInt(m.total))); }
          case Op.Map: {
            const ptr = f.u64();
            const size = f.size();
            const file = openMemoryFile(pid, f.u32());
            if (file === undefined) return reply(CUDA.notSupported);
            mapped.map(ptr, size, file);
            return reply(0);
          }
          case Op.SyncIn: {
            for (let n = f.u32(); n > 0; n--) {
              const ptr = f.u64();
              const size = f.size();
              mapped.syncIn(ptr, size);
              hooks?.hostEvent?.({ op: 'sync-in', dst: ptr, n: size });
            }
            return reply(0);
          }
          case Op.SyncOut: return reply(0, u64s(BigInt(mapped.syncOut())));
          case Op.Image: {
            const base = f.u64();
            const [surface, kind, bits, channels, dims, width, height, depth, layers, cube, rowPitch, a0, a1, a2, filter, normalized, readMode] = Array.from({ length: 17 }, () => f.u32());
            const border: [number, number, number, number] = [f.f32(), f.f32(), f.f32(), f.f32()];
            return reply(0, u64s(device.createImage({
              base, surface: surface !== 0, kind: kind!, bits: bits!, channels: channels!, dims: dims!, width: width!, height: height!, depth: depth!,
              layers: layers!, cube: cube !== 0, rowPitch: rowPitch!, address: [a0!, a1!, a2!], filter: filter!, normalized: normalized !== 0, readMode: readMode!, border,
            })));
          }
          default: throw new CudaError(CUDA.notSupported, `unknown request ${op} (${payload.length} bytes): the program's runtime is not the one this ptxdbg serves`);
        }
      } catch (e) {
        // a request this side refuses (its fields do not fit its payload, or the device says
        // no): an error status for the program, one line for the user; the connection goes on
        if (e instanceof CudaError || e instanceof ProtocolError) {
          say(`ptxdbg: ${OP_NAMES[op] ?? `request ${op}`}: ${e instanceof ProtocolError ? `malformed request: ${e.message}` : e.message}`);
          return reply(e instanceof CudaError ? e.code : CUDA.invalidValue);
        }
        throw e;
      }
    };
    socket.on('data', (b: Buffer) => {
      if (broken) return;
      reader.push(b);
      void pump().catch((e: unknown) => { closed = true; closeFiles(); socket.destroy(); fail(e); });
    });
    const end = (): void => {
      if (closed) return;
      closed = true;
      const part = broken ? undefined : reader.partial();
      if (part) say(`ptxdbg: the program's connection closed in the middle of a request (${part.have} of ${part.want ?? 16} bytes); the request is dropped`);
      closeFiles();
      done();
    };
    socket.on('close', end);
    socket.on('error', end);
  });
}
