/**
 * Texture and surface images in a launch file (README, "Launch files"): a kernel argument
 * `{"name", "type": "texture" | "surface", "format", "extent", ...}` passes a handle, and the
 * top-level `"textures": {"tref": {...}}` binds a module's `.texref` / `.surfref` / `.samplerref`.
 * Every mistake is an error naming the field.
 */
import type { OpaqueField } from '../../ptx/ast.js';
import { type AddressMode, FORMAT_NAMES, parseFormat, type Sampler, texelBytes, texelCount, type TexelFormat } from './image.js';

/**
 * `base` with the settings of a module's `.samplerref`/`.texref` initializer applied (the resolver
 * has checked names and values); `keep` names the ones the launch set itself, which win.
 */
export function withFields(base: Sampler, fields: readonly OpaqueField[], keep: ReadonlySet<string> = new Set()): Sampler {
  const address: [AddressMode, AddressMode, AddressMode] = [...base.address];
  let { filter, normalized } = base;
  for (const f of fields) {
    const dim = /^addr_mode_([012])$/.exec(f.name);
    if (dim && !keep.has('address')) address[Number(dim[1])] = f.value === 'clamp_ogl' ? 'clamp' : MODES[f.value] ?? address[Number(dim[1])]!;
    else if (f.name === 'filter_mode' && !keep.has('filter')) filter = f.value === 'linear' ? 'linear' : 'point';
    else if (f.name === 'normalized_coords' && !keep.has('normalized')) normalized = f.value === '1';
    else if (f.name === 'force_unnormalized_coords' && f.value === '1' && !keep.has('normalized')) normalized = false;
  }
  return { ...base, address, filter, normalized };
}

/** An image as the launch describes it (its texels are placed in device memory at launch). */
export interface ImageSpec {
  readonly kind: 'texture' | 'surface';
  readonly format: TexelFormat;
  readonly dims: 1 | 2 | 3;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly layers: number;
  readonly cube: boolean;
  /** Mip levels (textures), level 0 first; absent: 1. */
  readonly levels?: number;
  readonly sampler: Sampler;
  /** Initial texels (all of them), or undefined for zeros. */
  readonly init: Uint8Array | undefined;
}

export type SpecError = (field: string, message: string) => never;

const MODES: Record<string, AddressMode> = {
  clamp: 'clamp', clamp_to_edge: 'clamp', wrap: 'wrap', repeat: 'wrap', mirror: 'mirror', border: 'border', clamp_to_border: 'border',
};

/** Image extent limits: one image is one host allocation. */
const MAX_EXTENT = 1 << 16;

export function parseSampler(r: Record<string, unknown>, err: SpecError): Sampler {
  const am = r['addressMode'] ?? 'clamp';
  const list = Array.isArray(am) ? am : [am, am, am];
  const address = [0, 1, 2].map((d) => {
    const v = list[d] ?? list[list.length - 1];
    const m = typeof v === 'string' ? MODES[v] : undefined;
    if (!m) return err('addressMode', `must be clamp, wrap, mirror or border (or a list of them per dimension), got ${JSON.stringify(v)}`);
    return m;
  }) as [AddressMode, AddressMode, AddressMode];
  const filter = r['filterMode'] ?? 'point';
  if (filter !== 'point' && filter !== 'linear') err('filterMode', 'must be "point" or "linear"');
  const normalized = r['normalizedCoords'] ?? false;
  if (typeof normalized !== 'boolean') err('normalizedCoords', 'must be true or false');
  const readMode = r['readMode'] ?? 'element';
  if (readMode !== 'element' && readMode !== 'normalizedFloat') err('readMode', 'must be "element" or "normalizedFloat"');
  const border = r['borderColor'] ?? [0, 0, 0, 0];
  if (!Array.isArray(border) || border.length !== 4 || !border.every((x) => typeof x === 'number')) err('borderColor', 'must be four numbers');
  const mip = r['mipmapFilterMode'];
  if (mip !== undefined && mip !== 'point' && mip !== 'linear') err('mipmapFilterMode', 'must be "point" or "linear"');
  return {
    address, filter: filter as 'point' | 'linear', normalized: normalized as boolean, readMode: readMode as Sampler['readMode'], border: border as [number, number, number, number],
    ...(mip !== undefined ? { mipFilter: mip as 'point' | 'linear' } : {}),
  };
}

/**
 * An image from its JSON description; `readInit(bytes)` reads `"file"` (bounded by the image's
 * size), or the texels come from `"value"` (numbers, one per channel).
 */
export function parseImage(r: Record<string, unknown>, kind: 'texture' | 'surface', err: SpecError, readInit: (file: string, bytes: number) => Uint8Array): ImageSpec {
  const fname = r['format'];
  const format = typeof fname === 'string' ? parseFormat(fname) : undefined;
  if (!format) return err('format', `must be one of ${FORMAT_NAMES}`);
  const ext = r['extent'];
  if (!Array.isArray(ext) || ext.length < 1 || ext.length > 3 || !ext.every((x) => Number.isInteger(x) && x >= 1 && x <= MAX_EXTENT)) {
    return err('extent', `must be [width], [width, height] or [width, height, depth], each 1..${MAX_EXTENT}`);
  }
  const cube = r['cube'] ?? false;
  if (typeof cube !== 'boolean') return err('cube', 'must be true or false');
  if (cube && (ext.length !== 2 || ext[0] !== ext[1])) return err('extent', 'a cube map has square faces: [size, size]');
  const layers = r['layers'] ?? 1;
  if (!Number.isInteger(layers) || (layers as number) < 1 || (layers as number) > 2048) return err('layers', 'must be an integer 1..2048');
  // a full mip chain ends at 1x1x1: floor(log2(largest extent)) + 1 levels at most
  const maxLevels = Math.floor(Math.log2(Math.max(...(ext as number[])))) + 1;
  const levels = r['levels'] ?? 1;
  if (!Number.isInteger(levels) || (levels as number) < 1 || (levels as number) > maxLevels) return err('levels', `must be an integer 1..${maxLevels} (the mip chain of ${ext.join('x')} ends at 1x1)`);
  if (kind === 'surface' && levels !== 1) return err('levels', 'must be 1 for a surface (a surface is one mip level)');
  const spec = {
    kind, format, dims: ext.length as 1 | 2 | 3, width: ext[0] as number, height: (ext[1] as number | undefined) ?? 1, depth: (ext[2] as number | undefined) ?? 1,
    layers: layers as number, cube: cube as boolean, ...(levels !== 1 ? { levels: levels as number } : {}),
  };
  const bytes = texelCount(spec) * texelBytes(format);
  if (bytes > 2 ** 30) return err('extent', `the image needs ${bytes} bytes, more than 1 GiB`);
  let init: Uint8Array | undefined;
  if (r['file'] !== undefined) {
    if (typeof r['file'] !== 'string') return err('file', 'must be a path');
    init = readInit(r['file'], bytes);
    if (init.length !== bytes) return err('file', `${r['file']} is ${init.length} bytes, the image is ${bytes} (${texelCount(spec)} texels of ${texelBytes(format)} bytes)`);
  } else if (r['value'] !== undefined) {
    const v = r['value'];
    const n = texelCount(spec) * format.channels;
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) return err('value', `must be ${n} numbers (${texelCount(spec)} texels x ${format.channels} channels)`);
    init = encode(v as number[], format);
  }
  return { ...spec, sampler: parseSampler(r, err), init };
}

/** Channel values to texel bytes (little-endian; half rounds to nearest even). */
function encode(values: readonly number[], f: TexelFormat): Uint8Array {
  const size = f.bits / 8;
  const out = new Uint8Array(values.length * size);
  const dv = new DataView(out.buffer);
  values.forEach((x, i) => {
    const o = i * size;
    if (f.kind === 'float') {
      if (f.bits === 32) dv.setFloat32(o, x, true);
      else dv.setUint16(o, halfBits(x), true);
    } else if (f.bits === 8) dv.setUint8(o, x & 0xff);
    else if (f.bits === 16) dv.setUint16(o, x & 0xffff, true);
    else dv.setUint32(o, x >>> 0, true);
  });
  return out;
}

/** IEEE half bits of x, rounded to nearest even (for "value" lists of half images). */
function halfBits(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  const e = (u >>> 23) & 0xff;
  let m = u & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (m ? 0x200 : 0);
  let he = e - 127 + 15;
  if (he >= 0x1f) return sign | 0x7c00;
  if (he <= 0) {
    if (he < -10) return sign;
    m |= 0x800000;
    const shift = 14 - he;
    const r = m >>> shift;
    const rem = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    return sign | (r + (rem > half || (rem === half && (r & 1)) ? 1 : 0));
  }
  let r = (he << 10) | (m >>> 13);
  const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1))) r++;
  he = r;
  return sign | he;
}
