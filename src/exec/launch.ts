/**
 * Launch descriptions: the `launch.json` contract of the conformance README, `--grid/--block/--arg`
 * flags, and the default launch for a bare `ptxdbg run kernel.ptx`. Every problem is a
 * `LaunchError` naming the field.
 */
import { existsSync } from 'node:fs';
import { readBounded, readBoundedText, ReadError } from '../io/bounded.js';
import { dirname, resolve } from 'node:path';
import { entryNames, entryOf, type Program } from '../ptx/resolve.js';
import { DEVICE_LIMITS } from '../ptx/device-limits.js';
import type { Sampler } from './texture/image.js';
import { type ImageSpec, parseImage, parseSampler, withFields } from './texture/spec.js';
import { FORMAT_NAMES, ImageTable, parseFormat, texelBytes } from './texture/image.js';
import { type Allocation, Bank, GlobalArena, type ResidentMemory } from './memory.js';
import { loadBytes } from './bank-pages.js';

export type ElemType = 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'u64' | 's64' | 'f16' | 'f32' | 'f64';
const ELEM_TYPES: ReadonlySet<string> = new Set(['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'f16', 'f32', 'f64']);

export type LaunchArg =
  | { kind: 'buffer'; name: string; type: ElemType; count: number; init: Uint8Array | undefined; file: string | undefined }
  | { kind: 'scalar'; name: string; type: ElemType; value: number | bigint }
  | { kind: 'bytes'; name: string; bytes: Uint8Array }
  /** A texture or surface object: the kernel gets a 64-bit handle (src/exec/texture). */
  | { kind: 'image'; name: string; image: ImageSpec };

/** A module `.texref`/`.surfref` (an image) or `.samplerref` (sampler settings) bound by name. */
export type RefBinding = { name: string; image: ImageSpec } | { name: string; sampler: Sampler };

export interface Launch {
  kernel: string;
  grid: [number, number, number];
  block: [number, number, number];
  sharedBytes: number;
  args: LaunchArg[];
  /** `"textures"` of the launch file: module texture/surface/sampler references. */
  refs?: RefBinding[];
  /**
   * A cooperative launch (cudaLaunchCooperativeKernel): every CTA is resident at once, and the
   * kernel finds its grid-barrier workspace in %envreg1:%envreg2, as the driver provides it.
   */
  cooperative?: boolean;
  /** Device memory that outlives the launch (a whole program's; a captured bundle's). */
  resident?: ResidentMemory;
  /** Nesting depth: 0 for a host's launch, 1 for a grid it launched from device code, ... */
  depth?: number;
}

export class LaunchError extends Error {}

/** x-fastest coordinates of a linear index in a grid or block of size `dims` (CUDA's order). */
export function coordsOf(linear: number, dims: readonly [number, number, number]): [number, number, number] {
  // indexes, not `const [x, y] = dims`: array destructuring runs the iterator protocol, slow
  // before V8 optimizes it and a large graph when it does (this runs for every CTA)
  const x = dims[0], y = dims[1];
  return [linear % x, Math.floor(linear / x) % y, Math.floor(linear / (x * y))];
}

/** The linear index of coordinates `c` in `dims`. */
export function linearOf(c: readonly [number, number, number], dims: readonly [number, number, number]): number {
  return c[0] + c[1] * dims[0] + c[2] * dims[0] * dims[1];
}

export function elemSize(t: ElemType): number {
  return t.endsWith('8') ? 1 : t.endsWith('16') ? 2 : t.endsWith('32') ? 4 : 8;
}

function dims(v: unknown, field: string): [number, number, number] {
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => Number.isInteger(x) && x >= 1)) {
    throw new LaunchError(`"${field}" must be three positive integers, e.g. [4, 1, 1]`);
  }
  return [v[0], v[1], v[2]];
}

/** A launch file is a small JSON document; anything larger is not one. */
const MAX_LAUNCH_FILE = 16 << 20;
/** One buffer argument: the emulated device memory is a host allocation, so it is bounded. */
export const MAX_BUFFER_BYTES = 2 ** 30;
/**
 * All device memory of a launch or a program (buffers, globals, heap) lives in one host
 * allocation, addressed by unsigned 32-bit offsets: 4 GiB (the host commits only the pages a
 * program touches).
 */
export const MAX_DEVICE_BYTES = 2 ** 32;
/** Up to 227 KiB of shared memory per block (opt-in dynamic size). */
const MAX_DYNAMIC_SHARED = DEVICE_LIMITS.sharedPerBlock;

/** Parse and validate a launch file against the module's kernel signature. */
export function readLaunchFile(path: string, program: Program): Launch {
  let text: string;
  try {
    text = readBoundedText(path, MAX_LAUNCH_FILE);
  } catch (e) {
    if (e instanceof ReadError) throw new LaunchError(`launch file: ${e.message}`);
    throw e;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LaunchError(`${path}: not valid JSON: ${(e as Error).message}`);
  }
  return parseLaunch(json, program, dirname(resolve(path)), path);
}

export function parseLaunch(json: unknown, program: Program, baseDir: string, where = 'launch'): Launch {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new LaunchError(`${where}: expected a JSON object`);
  const o = json as Record<string, unknown>;
  const kernel = o['kernel'];
  if (typeof kernel !== 'string') throw new LaunchError(`${where}: "kernel" must be the .entry name`);
  const fn = entryOf(program, kernel);
  if (!fn) {
    const entries = entryNames(program);
    throw new LaunchError(`${where}: "kernel": no .entry named '${kernel}' (entries: ${entries.join(', ') || 'none'})`);
  }
  const grid = dims(o['grid'] ?? [1, 1, 1], 'grid');
  const block = dims(o['block'] ?? [1, 1, 1], 'block');
  if (block[0] * block[1] * block[2] > DEVICE_LIMITS.threadsPerBlock) throw new LaunchError(`${where}: "block": ${block.join('x')} is more than ${DEVICE_LIMITS.threadsPerBlock} threads`);
  const sharedBytes = o['sharedBytes'] ?? 0;
  if (!Number.isInteger(sharedBytes) || (sharedBytes as number) < 0) throw new LaunchError(`${where}: "sharedBytes" must be a non-negative integer`);
  if ((sharedBytes as number) > MAX_DYNAMIC_SHARED) throw new LaunchError(`${where}: "sharedBytes": ${sharedBytes} is more than the ${MAX_DYNAMIC_SHARED} bytes of shared memory a block can have`);
  const rawArgs = o['args'] ?? [];
  if (!Array.isArray(rawArgs)) throw new LaunchError(`${where}: "args" must be an array`);
  if (rawArgs.length !== fn.params.length) {
    throw new LaunchError(`${where}: "args": kernel ${kernel} takes ${fn.params.length} parameter(s), the launch gives ${rawArgs.length}`);
  }
  const args = rawArgs.map((a: unknown, i: number): LaunchArg => {
    const p = fn.params[i]!;
    const at = `${where}: args[${i}]`;
    if (typeof a !== 'object' || a === null) throw new LaunchError(`${at}: expected an object`);
    const r = a as Record<string, unknown>;
    const name = typeof r['name'] === 'string' ? r['name'] : `arg${i}`;
    const type = r['type'];
    if (type === 'bytes') {
      const v = r['value'];
      if (!Array.isArray(v) || !v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) throw new LaunchError(`${at} (${name}): "value" must be a list of bytes`);
      if (v.length !== p.size) throw new LaunchError(`${at} (${name}): ${v.length} bytes given, parameter ${p.name} is ${p.size} bytes`);
      return { kind: 'bytes', name, bytes: Uint8Array.from(v as number[]) };
    }
    if (type === 'texture' || type === 'surface') {
      if (p.size !== 8) throw new LaunchError(`${at} (${name}): a ${type} object is a 64-bit handle, but parameter ${p.name} is ${p.size} bytes`);
      return { kind: 'image', name, image: imageFrom(r, type, `${at} (${name})`, baseDir) };
    }
    if (typeof type !== 'string' || !ELEM_TYPES.has(type)) throw new LaunchError(`${at} (${name}): "type" must be one of ${[...ELEM_TYPES].join(' ')}, "bytes", "texture" or "surface"`);
    const et = type as ElemType;
    if ('count' in r) {
      const count = r['count'];
      if (!Number.isInteger(count) || (count as number) < 0) throw new LaunchError(`${at} (${name}): "count" must be a non-negative integer`);
      if ((count as number) * elemSize(et) > MAX_BUFFER_BYTES) throw new LaunchError(`${at} (${name}): "count": ${count} elements is more than ${MAX_BUFFER_BYTES} bytes`);
      const ptrSize = program.module.addressSize === 32 ? 4 : 8;
      if (p.size !== 8 && p.size !== ptrSize) throw new LaunchError(`${at} (${name}): a buffer is passed as a 64-bit pointer, but parameter ${p.name} is ${p.size} bytes`);
      let init: Uint8Array | undefined;
      const file = r['file'];
      if (file !== undefined) {
        if (typeof file !== 'string') throw new LaunchError(`${at} (${name}): "file" must be a path`);
        const full = resolve(baseDir, file);
        if (!existsSync(full)) throw new LaunchError(`${at} (${name}): input file ${file} not found`);
        const want = (count as number) * elemSize(et);
        init = readExact(baseDir, file, want, `${at} (${name})`, `count*size = ${want}`);
      }
      return { kind: 'buffer', name, type: et, count: count as number, init, file: typeof file === 'string' ? file : undefined };
    }
    const value = r['value'];
    if (typeof value !== 'number') throw new LaunchError(`${at} (${name}): a scalar needs a numeric "value" (or "count" for a buffer)`);
    if (elemSize(et) !== p.size && !(p.size === 4 && elemSize(et) < 4)) {
      throw new LaunchError(`${at} (${name}): type ${et} is ${elemSize(et)} bytes, parameter ${p.name} is ${p.size} bytes`);
    }
    checkScalar(at, name, et, value, p.decl.type, p.name);
    return { kind: 'scalar', name, type: et, value };
  });
  const refs = parseRefs(o['textures'], program, baseDir, where);
  const cooperative = o['cooperative'] ?? false;
  if (typeof cooperative !== 'boolean') throw new LaunchError(`${where}: "cooperative" must be true or false`);
  const depth = o['depth'] ?? 0;
  if (!Number.isInteger(depth) || (depth as number) < 0 || (depth as number) > 24) throw new LaunchError(`${where}: "depth" (the nesting depth of a grid launched from device code) must be an integer from 0 to 24`);
  const resident = o['device'] === undefined ? undefined : parseDevice(o['device'], program, baseDir, `${where}: "device"`);
  return {
    kernel, grid, block, sharedBytes: sharedBytes as number, args, ...(refs.length ? { refs } : {}), ...(cooperative ? { cooperative } : {}),
    ...(resident ? { resident } : {}), ...(depth ? { depth: depth as number } : {}),
  };
}

/** An image argument or reference, with texels read from `"file"` relative to the launch file. */
function imageFrom(r: Record<string, unknown>, kind: 'texture' | 'surface', at: string, baseDir: string): ImageSpec {
  const err = (field: string, message: string): never => { throw new LaunchError(`${at}: "${field}" ${message}`); };
  return parseImage(r, kind, err, (file, bytes) => {
    const full = resolve(baseDir, file);
    if (!existsSync(full)) err('file', `${file} not found`);
    try {
      return new Uint8Array(readBounded(full, bytes));
    } catch (e) {
      if (e instanceof ReadError) return err('file', e.message);
      throw e;
    }
  });
}

/** `"textures": {"tref": {"type": "texture", ...}, "smp": {"type": "sampler", ...}}`. */
function parseRefs(json: unknown, program: Program, baseDir: string, where: string): RefBinding[] {
  if (json === undefined) return [];
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new LaunchError(`${where}: "textures" must be an object mapping .texref/.surfref/.samplerref names to images`);
  const out: RefBinding[] = [];
  for (const [name, spec] of Object.entries(json as Record<string, unknown>)) {
    const at = `${where}: "textures"."${name}"`;
    const v = program.globals.find((g) => g.name === name);
    // ISA 1.x declares a texture reference as a variable of the .tex space (`.tex .u32 tex_a;`)
    const refType = v?.decl.space === 'tex' ? 'texref' : v?.decl.type;
    if (!v || (refType !== 'texref' && refType !== 'surfref' && refType !== 'samplerref')) throw new LaunchError(`${at}: the module declares no .texref, .surfref or .samplerref named ${name}`);
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new LaunchError(`${at}: expected an object`);
    const r = spec as Record<string, unknown>;
    if (refType === 'samplerref') {
      out.push({ name, sampler: parseSampler(r, (field, message) => { throw new LaunchError(`${at}: "${field}" ${message}`); }) });
      continue;
    }
    const image = imageFrom(r, refType === 'surfref' ? 'surface' : 'texture', at, baseDir);
    // a .texref initializer chooses its sampling; what the launch file sets itself wins
    const set = new Set([['addressMode', 'address'], ['filterMode', 'filter'], ['normalizedCoords', 'normalized']].filter(([k]) => r[k!] !== undefined).map(([, f]) => f!));
    out.push({ name, image: v.decl.fields ? { ...image, sampler: withFields(image.sampler, v.decl.fields, set) } : image });
  }
  return out;
}

/** Integer ranges of the launch's element types, for refusing values that would wrap. */
const INT_RANGE: Partial<Record<ElemType, [number, number]>> = {
  u8: [0, 0xff], s8: [-0x80, 0x7f], u16: [0, 0xffff], s16: [-0x8000, 0x7fff],
  u32: [0, 0xffffffff], s32: [-0x80000000, 0x7fffffff],
  u64: [0, Number.MAX_SAFE_INTEGER], s64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * A scalar must mean what the kernel reads: a float for a float parameter, an integer in range for
 * an integer one. Same-sized bit patterns are never reinterpreted silently (`f32:96.5` for an
 * `.s32` parameter would otherwise arrive as 1119944704). `.b` parameters take either.
 */
function checkScalar(at: string, name: string, et: ElemType, value: number, paramType: string, paramName: string): void {
  const isFloat = et.startsWith('f');
  const paramFloat = paramType.startsWith('f');
  const paramInt = paramType.startsWith('s') || paramType.startsWith('u');
  if (isFloat && paramInt) throw new LaunchError(`${at} (${name}): a ${et} value is given for parameter ${paramName} of type .${paramType}: use an integer type`);
  if (!isFloat && paramFloat) throw new LaunchError(`${at} (${name}): a ${et} value is given for parameter ${paramName} of type .${paramType}: use ${paramType}`);
  if (isFloat) return;
  if (!Number.isInteger(value)) throw new LaunchError(`${at} (${name}): ${value} is not an integer, and parameter ${paramName} is .${paramType}`);
  const range = INT_RANGE[et];
  if (range && (value < range[0] || value > range[1])) throw new LaunchError(`${at} (${name}): ${value} does not fit in ${et} (${range[0]}..${range[1]})`);
}

/**
 * The default launch when none is given: the first entry, one block of 32 threads (or the
 * kernel's .reqntid/.maxntid), each pointer parameter a zeroed buffer of 1024 elements of 4
 * bytes, 32-bit integer scalars set to the thread count and floats to 1.0.
 */
export function defaultLaunch(program: Program, kernelName?: string): Launch {
  const name = kernelName ?? entryNames(program)[0];
  const fn = name === undefined ? undefined : entryOf(program, name);
  if (!fn) throw new LaunchError(kernelName ? `no .entry named '${kernelName}'` : 'the module has no .entry to launch');
  // ISA 1.1 `.entry name[NTID.2][NTID.1][NTID.0]` gives the CTA shape, outermost first
  const isa11 = fn.decl.ctaDims.length > 0 && fn.decl.ctaDims.every((d) => d > 0) ? [...fn.decl.ctaDims].reverse() : undefined;
  const req = fn.decl.perf.get('reqntid') ?? fn.decl.perf.get('maxntid') ?? isa11;
  const block: [number, number, number] = [req?.[0] ?? 32, req?.[1] ?? 1, req?.[2] ?? 1];
  const n = block[0] * block[1] * block[2];
  const args = fn.params.map((p, i): LaunchArg => {
    const name = `arg${i}`;
    if (p.size === 8 && (p.decl.type === 'u64' || p.decl.type === 'b64' || p.decl.type === 's64')) {
      return { kind: 'buffer', name, type: 'u32', count: Math.max(1024, n), init: undefined, file: undefined };
    }
    if (p.decl.type === 'f32') return { kind: 'scalar', name, type: 'f32', value: 1 };
    if (p.decl.type === 'f64') return { kind: 'scalar', name, type: 'f64', value: 1 };
    if (p.size === 4) return { kind: 'scalar', name, type: 'u32', value: n };
    return { kind: 'bytes', name, bytes: new Uint8Array(p.size) };
  });
  return { kernel: fn.name, grid: [1, 1, 1], block, sharedBytes: 0, args };
}

/** A buffer's or a captured region's file: exactly `size` bytes (`expected` says how that was derived). */
function readExact(baseDir: string, file: unknown, size: number, at: string, expected = String(size)): Uint8Array {
  if (typeof file !== 'string') throw new LaunchError(`${at}: "file" must be a path`);
  let b: Uint8Array;
  try {
    b = new Uint8Array(readBounded(resolve(baseDir, file), size));
  } catch (e) {
    if (e instanceof ReadError) throw new LaunchError(`${at}: "file": ${e.message}`);
    throw e;
  }
  if (b.length !== size) throw new LaunchError(`${at}: ${file} is ${b.length} bytes, expected ${expected}`);
  return b;
}

/**
 * The "device" section of a captured launch (src/host/bundle.ts): the whole device memory of a
 * program at the launch, each region at the offset it had.
 */
function parseDevice(v: unknown, program: Program, baseDir: string, where: string): ResidentMemory {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new LaunchError(`${where}: expected an object`);
  const d = v as Record<string, unknown>;
  const int = (x: unknown, at: string, max = MAX_DEVICE_BYTES): number => {
    if (!Number.isInteger(x) || (x as number) < 0 || (x as number) > max) throw new LaunchError(`${at}: must be an integer from 0 to ${max}`);
    return x as number;
  };
  const heap = (d['heap'] ?? {}) as Record<string, unknown>;
  const heapOff = int(heap['offset'] ?? 0, `${where}.heap.offset`);
  const heapSize = int(heap['size'] ?? 0, `${where}.heap.size`);
  const heapTop = int(heap['top'] ?? heapOff, `${where}.heap.top`);
  const regions = d['regions'] ?? [];
  if (!Array.isArray(regions)) throw new LaunchError(`${where}.regions: expected an array`);
  let extent = heapOff + heapSize + 256;
  const parsed = regions.map((x: unknown, i: number) => {
    const at = `${where}.regions[${i}]`;
    if (typeof x !== 'object' || x === null) throw new LaunchError(`${at}: expected an object`);
    const r = x as Record<string, unknown>;
    const name = r['name'];
    if (typeof name !== 'string' || !/^[\w.-]+$/.test(name)) throw new LaunchError(`${at}: "name" must be a file-safe name`);
    const kind = r['kind'];
    if (kind !== 'buffer' && kind !== 'global' && kind !== 'heap') throw new LaunchError(`${at}: "kind" must be buffer, global or heap`);
    const offset = int(r['offset'], `${at}.offset`);
    const size = int(r['size'], `${at}.size`, MAX_BUFFER_BYTES);
    if (offset % 256 !== 0 || offset < 256) throw new LaunchError(`${at}.offset: ${offset} is not a 256-byte aligned device offset`);
    const variable = r['variable'] ?? name;
    if (kind === 'global' && (typeof variable !== 'string' || !program.globals.some((g) => g.name === variable && g.space === 'global'))) throw new LaunchError(`${at}: the module has no .global variable ${String(variable)}`);
    extent = Math.max(extent, offset + Math.ceil(Math.max(size, 1) / 256) * 256 + 256);
    return { name, variable: String(variable), kind: kind as 'buffer' | 'global' | 'heap', offset, size, bytes: readExact(baseDir, r['file'], size, at) };
  });
  if (extent > MAX_DEVICE_BYTES) throw new LaunchError(`${where}: the regions reach ${extent} bytes, more than the ${MAX_DEVICE_BYTES} the emulator provides`);
  const arena = new GlobalArena(extent);
  arena.reserveHeapAt(heapOff, heapSize, heapTop);
  const globals = new Map<string, number>();
  const outputs: Allocation[] = [];
  for (const [i, r] of parsed.entries()) {
    let a: Allocation;
    try {
      a = arena.allocateAt(r.offset, r.size, r.name, r.kind);
    } catch (e) {
      throw new LaunchError(`${where}.regions[${i}]: ${(e as Error).message}`);
    }
    loadBytes(arena.bank, r.bytes, r.offset);
    if (r.kind === 'global') globals.set(r.variable, r.offset);
    outputs.push(a);
  }
  // every .global variable the module has must be placed, or the launch would put it elsewhere
  for (const g of program.globals) if (g.space === 'global' && !globals.has(g.name)) throw new LaunchError(`${where}: no region for the module's .global variable ${g.name}`);
  let constBank: Bank | undefined;
  if (d['const'] !== undefined) {
    const c = d['const'] as Record<string, unknown>;
    const size = int(c['size'], `${where}.const.size`, 1 << 20);
    constBank = new Bank(Math.max(16, size));
    constBank.u8.set(readExact(baseDir, c['file'], size, `${where}.const`));
  }
  const images = d['images'] === undefined ? undefined : parseDeviceImages(d['images'], arena, `${where}.images`);
  return { arena, globals, constBank, outputs, ...(images ? { images } : {}) };
}

/** A captured program's texture and surface objects, in handle order, over its regions. */
function parseDeviceImages(v: unknown, arena: GlobalArena, where: string): ImageTable {
  if (!Array.isArray(v)) throw new LaunchError(`${where}: expected an array`);
  const table = new ImageTable();
  v.forEach((x: unknown, i: number) => {
    const at = `${where}[${i}]`;
    if (typeof x !== 'object' || x === null) throw new LaunchError(`${at}: expected an object`);
    const r = x as Record<string, unknown>;
    const format = typeof r['format'] === 'string' ? parseFormat(r['format']) : undefined;
    if (!format) throw new LaunchError(`${at}.format: expected a texel format (${FORMAT_NAMES})`);
    const n = (k: string, min: number): number => {
      const y = r[k];
      if (!Number.isInteger(y) || (y as number) < min || (y as number) > MAX_DEVICE_BYTES) throw new LaunchError(`${at}.${k}: must be an integer from ${min}`);
      return y as number;
    };
    const dims = n('dims', 1);
    if (dims > 3) throw new LaunchError(`${at}.dims: must be 1, 2 or 3`);
    const kind = r['kind'] === 'surface' ? 'surface' : 'texture';
    const s = (r['sampler'] ?? {}) as Record<string, unknown>;
    const sampler = parseSampler({
      addressMode: s['address'] ?? 'clamp', filterMode: s['filter'] ?? 'point', normalizedCoords: s['normalized'] ?? false,
      readMode: s['readMode'] ?? 'element', borderColor: s['border'] ?? [0, 0, 0, 0],
    }, (field, message) => { throw new LaunchError(`${at}.sampler.${field}: ${message}`); });
    const width = n('width', 1), height = n('height', 1), depth = n('depth', 1), layers = n('layers', 1);
    const cube = r['cube'] === true;
    const base = n('offset', 256);
    const rowPitch = r['rowPitch'] === undefined ? undefined : n('rowPitch', width * texelBytes(format));
    const bytes = (rowPitch ?? width * texelBytes(format)) * height * depth * layers * (cube ? 6 : 1);
    if (arena.check(base, bytes) < 0) throw new LaunchError(`${at}: its ${bytes} bytes at offset ${base} are not inside one region`);
    table.add({ kind, format, dims: dims as 1 | 2 | 3, width, height, depth, layers, cube, sampler, name: `${kind} #${i + 1}`, base, ...(rowPitch !== undefined ? { rowPitch } : {}) });
  });
  return table;
}
