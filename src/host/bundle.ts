/**
 * Capture bundles: one launch of a whole program, self-contained, so `ptxdbg DIR` reopens it on
 * any machine and `ptxdbg run DIR --out X` reproduces its outputs byte for byte. A bundle holds
 * the module's PTX (kernel.ptx), a launch.json in the shared contract with a "device" section
 * (every live allocation and module variable at the device offset it had, so pointers stored in
 * memory stay valid), the input bytes of each (in/), and after the launch its outputs
 * (expected/, stdout.txt).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Device, LaunchRequest } from './device.js';
import type { Image } from '../exec/texture/image.js';
import { MAX_BUFFER_BYTES, MAX_DEVICE_BYTES } from '../exec/launch.js';

/** The device memory a launch starts from, copied before it runs. */
export interface LaunchSnapshot {
  readonly ptx: string;
  readonly request: LaunchRequest;
  readonly paramNames: readonly string[];
  readonly paramSlots: readonly { offset: number; size: number }[];
  readonly regions: readonly Region[];
  readonly heap: { start: number; end: number; top: number };
  readonly constBytes: Uint8Array | undefined;
  /** The program's texture and surface objects, in handle order (their texels are in regions). */
  readonly images: readonly Image[];
}

interface Region {
  /** File-safe: the name is also the bundle's file name and `run --out`'s. */
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly kind: 'buffer' | 'global' | 'heap';
  /** A module variable's PTX name (it may hold characters a file name should not). */
  readonly variable: string | undefined;
  readonly bytes: Uint8Array;
}

const safe = (s: string): string => s.replace(/[^\w.-]+/g, '_');

/**
 * Why the device's memory cannot be a bundle, or undefined: a launch file's regions (launch.ts)
 * are at most MAX_BUFFER_BYTES each, within the first MAX_DEVICE_BYTES of device memory. Asked
 * before snapshotLaunch, which would copy every allocation into host memory first.
 */
export function bundleRefusal(device: Device): string | undefined {
  for (const a of device.arena.allocs) {
    if (a.freed) continue;
    if (a.size > MAX_BUFFER_BYTES) return `its device memory holds an allocation of ${a.size} bytes, more than the ${MAX_BUFFER_BYTES / 2 ** 30} GiB one region of a capture bundle holds`;
    if (a.base + a.size > MAX_DEVICE_BYTES) return `its device memory reaches past the first ${MAX_DEVICE_BYTES / 2 ** 30} GiB, which a capture bundle cannot address yet`;
  }
  return undefined;
}

/** Copy what the launch can reach: every live allocation, device-heap block and module variable. */
export function snapshotLaunch(device: Device, r: LaunchRequest): LaunchSnapshot {
  const { launch } = device.launchOf(r);
  device.placeModule(r.module); // the launch would place the module's variables: capture them
  const mod = device.modules[r.module]!;
  const info = device.kernelInfo(r.module, r.kernel);
  const regions: Region[] = [];
  const globalsAt = new Set(mod.resident.globals.values());
  for (const a of device.arena.allocs) {
    if (a.freed) continue;
    const kind = a.kind === 'heap' ? 'heap' : globalsAt.has(a.base) && a.kind === 'global' ? 'global' : device.kindOf(a) ? 'buffer' : undefined;
    if (!kind) continue; // another module's variable: this kernel cannot name it
    regions.push({
      name: kind === 'heap' ? `heap_${a.base.toString(16)}` : safe(a.name), offset: a.base, size: a.size, kind,
      variable: kind === 'global' ? a.name : undefined, bytes: device.arena.bytes(a.base, a.size).slice(),
    });
  }
  return {
    ptx: mod.ptx, request: r,
    paramNames: launch.args.map((a) => a.name), paramSlots: info.params,
    regions, heap: device.arena.heap,
    constBytes: mod.resident.constBank?.u8.slice(),
    images: [...device.images.images],
  };
}

function put(file: string, bytes: Uint8Array | string): void {
  writeFileSync(file + '.tmp', bytes);
  renameSync(file + '.tmp', file);
}

/** Write the bundle's inputs: kernel.ptx, launch.json, in/. */
export function writeBundle(dir: string, s: LaunchSnapshot): void {
  mkdirSync(join(dir, 'in'), { recursive: true });
  put(join(dir, 'kernel.ptx'), s.ptx);
  const r = s.request;
  const files = new Map<string, string>();
  for (const g of s.regions) {
    const file = `in/${g.name}.bin`;
    put(join(dir, file), g.bytes);
    files.set(g.name, file);
  }
  if (s.constBytes) put(join(dir, 'in', 'const.bin'), s.constBytes);
  const launch = {
    kernel: r.kernel, grid: r.grid, block: r.block, sharedBytes: r.sharedBytes,
    ...(r.cooperative ? { cooperative: true } : {}),
    // a grid launched from device code keeps its nesting depth (launches from it are limited by it)
    ...(r.depth ? { depth: r.depth } : {}),
    args: s.paramSlots.map((p, i) => ({ name: s.paramNames[i], type: 'bytes', value: [...r.params.subarray(p.offset, p.offset + p.size)] })),
    device: {
      heap: { offset: s.heap.start, size: s.heap.end - s.heap.start, top: s.heap.top },
      regions: s.regions.map((g) => ({ name: g.name, kind: g.kind, ...(g.variable ? { variable: g.variable } : {}), offset: g.offset, size: g.size, file: files.get(g.name) })),
      ...(s.constBytes ? { const: { file: 'in/const.bin', size: s.constBytes.length } } : {}),
      ...(s.images.length ? {
        images: s.images.map((im) => ({
          kind: im.kind, format: im.format.name, dims: im.dims, width: im.width, height: im.height, depth: im.depth, layers: im.layers, cube: im.cube,
          offset: im.base, ...(im.rowPitch !== undefined ? { rowPitch: im.rowPitch } : {}), sampler: im.sampler,
        })),
      } : {}),
    },
  };
  // one field per line, but a list of numbers (bytes, dimensions) on one
  const text = JSON.stringify(launch, null, 1).replace(/\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]/g, (_, xs: string) => `[${xs.split(/,\s*/).join(', ')}]`);
  put(join(dir, 'launch.json'), text + '\n');
}

/** Write what the launch produced: expected/<region>.bin and stdout.txt. */
export function writeBundleOutputs(dir: string, device: Device, s: LaunchSnapshot, stdout: string): void {
  mkdirSync(join(dir, 'expected'), { recursive: true });
  for (const g of s.regions) put(join(dir, 'expected', `${g.name}.bin`), device.arena.bytes(g.offset, g.size));
  put(join(dir, 'stdout.txt'), stdout);
}
