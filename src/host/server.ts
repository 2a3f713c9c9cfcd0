/**
 * Serves one program's CUDA runtime (src/cudart) over its socket: memory calls go to the Device,
 * launches to the caller's handler (which may run the kernel, check it, or open the debugger on
 * it while the program waits). Requests are handled one at a time, in order.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { type Device, type LaunchRequest } from './device.js';
import { CUDA, CudaError } from './errors.js';
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
}

const OP_NAMES: Record<number, string> = {
  [Op.Module]: '__cudaRegisterFatBinary', [Op.Malloc]: 'cudaMalloc', [Op.Free]: 'cudaFree', [Op.Write]: 'cudaMemcpy (to the device)',
  [Op.Read]: 'cudaMemcpy (from the device)', [Op.Copy]: 'cudaMemcpy (device to device)', [Op.Set]: 'cudaMemset',
  [Op.Symbol]: 'a device symbol', [Op.Kernel]: 'a kernel', [Op.Launch]: 'a launch', [Op.Reset]: 'cudaDeviceReset', [Op.Image]: 'cudaCreateTextureObject',
};

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
    if (!bulkFds.has(fd)) {
      let file: number | undefined;
      try { file = pid === undefined ? undefined : openSync(`/proc/${pid}/fd/${fd}`, 'r+'); } catch { file = undefined; }
      bulkFds.set(fd, file);
    }
    return bulkFds.get(fd);
  };
  let busy = false;
  let closed = false;
  return new Promise((done, fail) => {
    const pump = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          const f = reader.next();
          if (!f) break;
          const out = await handle(f.op, f.payload);
          if (!closed) for (const part of out) socket.write(part);
        }
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e;
        say(`ptxdbg: ${e.message}; closing the connection`);
        socket.destroy();
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
            return reply(0, u64s(device.malloc(size, kind === 0 ? 'device' : kind === 1 ? 'managed' : 'host')));
          }
          case Op.Free: device.free(f.u64()); return reply(0);
          case Op.Write: { const dst = f.u64(); device.write(dst, f.rest()); return reply(0); }
          case Op.Read: { const src = f.u64(); return reply(0, device.read(src, f.size())); }
          case Op.Copy: { const dst = f.u64(); const src = f.u64(); device.copy(dst, src, f.size()); return reply(0); }
          case Op.Set: { const dst = f.u64(); const n = f.size(); device.set(dst, f.u32(), n); return reply(0); }
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
            // the runtime's shared memory file holds the bytes at offset 0
            for (let done = 0; done < n;) {
              const k = op === Op.BulkWrite ? readSync(file, view, done, n - done, done) : writeSync(file, view, done, n - done, done);
              if (k <= 0) return reply(CUDA.notSupported);
              done += k;
            }
            if (op === Op.BulkWrite) device.written(ptr, n);
            return reply(0);
          }
          case Op.Reset: device.reset(); return reply(0);
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
          case Op.Image: {
            const base = f.u64();
            const [surface, kind, bits, channels, dims, width, height, depth, layers, cube, rowPitch, a0, a1, a2, filter, normalized, readMode] = Array.from({ length: 17 }, () => f.u32());
            const border: [number, number, number, number] = [f.f32(), f.f32(), f.f32(), f.f32()];
            return reply(0, u64s(device.createImage({
              base, surface: surface !== 0, kind: kind!, bits: bits!, channels: channels!, dims: dims!, width: width!, height: height!, depth: depth!,
              layers: layers!, cube: cube !== 0, rowPitch: rowPitch!, address: [a0!, a1!, a2!], filter: filter!, normalized: normalized !== 0, readMode: readMode!, border,
            })));
          }
          default: throw new ProtocolError(`unknown request ${op}`);
        }
      } catch (e) {
        if (e instanceof CudaError) {
          say(`ptxdbg: ${OP_NAMES[op] ?? `request ${op}`}: ${e.message}`);
          return reply(e.code);
        }
        throw e;
      }
    };
    socket.on('data', (b: Buffer) => {
      reader.push(b);
      void pump().catch((e: unknown) => { closed = true; socket.destroy(); fail(e); });
    });
    const end = (): void => {
      closed = true;
      for (const file of bulkFds.values()) if (file !== undefined) closeSync(file);
      done();
    };
    socket.on('close', end);
    socket.on('error', end);
  });
}
