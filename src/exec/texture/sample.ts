/**
 * Texture fetching as the CUDA Programming Guide's "Texture Fetching" appendix defines it:
 * normalized coordinates scale by the extent; wrap and mirror (normalized coordinates only),
 * clamp and border address the texel indices; linear filtering weighs the 2/4/8 nearest texels
 * with fractions held in 9-bit fixed point (8 fraction bits). Missing channels read as 0, alpha
 * as 1 (the OpenCL rule NVIDIA's hardware follows). Cube maps pick a face by the major axis.
 */
import { f16ToF32 } from '../float/half.js';
import type { Bank } from '../memory.js';
import { type AddressMode, type Image, levelExtent, levelStart, type Sampler, texelBytes } from './image.js';

/** Four channels of a texel (or of a filtered sample). */
export type Rgba = [number, number, number, number];

/** Channel c of the texel at byte offset `o`, as a number: integers exact, half/float decoded. */
function channel(bank: Bank, o: number, img: Image, c: number): number {
  const f = img.format;
  const at = o + c * (f.bits / 8);
  switch (f.bits) {
    case 8: return f.kind === 'signed' ? (bank.u8[at]! << 24) >> 24 : bank.u8[at]!;
    case 16: {
      const v = bank.u8[at]! | (bank.u8[at + 1]! << 8);
      return f.kind === 'float' ? f16ToF32(v) : f.kind === 'signed' ? (v << 16) >> 16 : v;
    }
    default: {
      const v = (bank.u8[at]! | (bank.u8[at + 1]! << 8) | (bank.u8[at + 2]! << 16) | (bank.u8[at + 3]! << 24)) >>> 0;
      if (f.kind === 'float') { F32[0] = v; return F32F[0]!; }
      return f.kind === 'signed' ? v | 0 : v;
    }
  }
}
const F32 = new Uint32Array(1);
const F32F = new Float32Array(F32.buffer);

/** What a read returns for one stored channel value: normalized floats for 8/16-bit integers in that mode. */
function readValue(v: number, img: Image, sampler: Sampler): number {
  const f = img.format;
  if (sampler.readMode !== 'normalizedFloat' || f.kind === 'float' || f.bits === 32) return v;
  const max = f.kind === 'unsigned' ? 2 ** f.bits - 1 : 2 ** (f.bits - 1) - 1;
  return Math.max(-1, v / max);
}

/** Bytes from one row of an image to the next (a pitched resource's pitch, else packed rows). */
export function rowPitch(img: Image): number {
  return img.rowPitch ?? img.width * texelBytes(img.format);
}

/** Byte offset of texel (x, y, z) of slice `slice` (layer, or layer*6 + face for cube maps) of a mip level. */
export function texelOffset(img: Image, x: number, y: number, z: number, slice: number, level = 0): number {
  const tb = texelBytes(img.format);
  if (level === 0) return img.base + ((slice * img.depth + z) * img.height + y) * rowPitch(img) + x * tb;
  // levels above 0 (launch images only) are packed, after the levels below them
  const [w, h, d] = levelExtent(img, level);
  return img.base + levelStart(img, level) * tb + (((slice * d + z) * h + y) * w + x) * tb;
}

/** The texel's four channels as read (missing ones: 0, alpha 1); `out` when index -1 is the border. */
function texel(bank: Bank, img: Image, s: Sampler, x: number, y: number, z: number, slice: number, out: Rgba, level = 0): void {
  if (x < 0 || y < 0 || z < 0) {
    out[0] = s.border[0]; out[1] = s.border[1]; out[2] = s.border[2]; out[3] = s.border[3];
    return;
  }
  const o = texelOffset(img, x, y, z, slice, level);
  const n = img.format.channels;
  for (let c = 0; c < 4; c++) out[c] = c < n ? readValue(channel(bank, o, img, c), img, s) : c === 3 ? 1 : 0;
}

/** A texel index addressed into [0, n) by the mode; -1 selects the border color. */
export function addressIndex(i: number, n: number, mode: AddressMode, normalized: boolean): number {
  // wrap and mirror need normalized coordinates; otherwise CUDA clamps
  const m = !normalized && (mode === 'wrap' || mode === 'mirror') ? 'clamp' : mode;
  switch (m) {
    case 'clamp': return i < 0 ? 0 : i >= n ? n - 1 : i;
    case 'border': return i < 0 || i >= n ? -1 : i;
    case 'wrap': return ((i % n) + n) % n;
    default: {
      const k = ((i % (2 * n)) + 2 * n) % (2 * n);
      return k < n ? k : 2 * n - 1 - k;
    }
  }
}

/** The fraction of a linear filter weight, as the hardware holds it: 9-bit fixed point, 8 fraction bits. */
export function quantizeWeight(a: number): number {
  return Math.round(a * 256) / 256;
}

const T0: Rgba = [0, 0, 0, 0];

/**
 * Sample `img` at floating-point coordinates (x, y, z) of `slice` with `sampler` (point or linear),
 * as tex.1d/2d/3d and the array forms do; the result is rounded to f32 per channel.
 */
export function sample(bank: Bank, img: Image, sampler: Sampler, coords: readonly [number, number, number], slice: number, out: Rgba, level = 0): void {
  const n = levelExtent(img, level);
  const dims = img.cube ? 2 : img.dims;
  const u = [0, 0, 0];
  for (let d = 0; d < dims; d++) u[d] = sampler.normalized ? coords[d]! * n[d]! : coords[d]!;
  if (sampler.filter === 'point') {
    const idx = [0, 0, 0];
    for (let d = 0; d < dims; d++) idx[d] = addressIndex(Math.floor(u[d]!), n[d]!, sampler.address[d]!, sampler.normalized);
    texel(bank, img, sampler, idx[0]!, idx[1]!, idx[2]!, slice, out, level);
    for (let c = 0; c < 4; c++) out[c] = Math.fround(out[c]!);
    return;
  }
  // linear: the 2^dims texels around u - 0.5, weighted by the quantized fractions
  const i0 = [0, 0, 0];
  const frac = [0, 0, 0];
  for (let d = 0; d < dims; d++) {
    const b = u[d]! - 0.5;
    i0[d] = Math.floor(b);
    frac[d] = quantizeWeight(b - i0[d]!);
  }
  out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0;
  const corners = 1 << dims;
  for (let k = 0; k < corners; k++) {
    let wgt = 1;
    const idx = [0, 0, 0];
    for (let d = 0; d < dims; d++) {
      const hi = (k >> d) & 1;
      wgt *= hi ? frac[d]! : 1 - frac[d]!;
      idx[d] = addressIndex(i0[d]! + hi, n[d]!, sampler.address[d]!, sampler.normalized);
    }
    if (wgt === 0) continue;
    texel(bank, img, sampler, idx[0]!, idx[1]!, idx[2]!, slice, T0, level);
    for (let c = 0; c < 4; c++) out[c] += wgt * T0[c]!;
  }
  for (let c = 0; c < 4; c++) out[c] = Math.fround(out[c]!);
}

/**
 * Integer texel coordinates (`.s32` coordinates, tex1Dfetch): no filtering or normalization; an
 * index outside the image reads zeros, as a fetch from linear memory does.
 */
export function fetch(bank: Bank, img: Image, sampler: Sampler, coords: readonly [number, number, number], slice: number, out: Rgba, level = 0): void {
  const n = levelExtent(img, level);
  for (let d = 0; d < img.dims; d++) {
    const v = coords[d]!;
    if (v < 0 || v >= n[d]!) { out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 0; return; }
  }
  texel(bank, img, sampler, coords[0]!, img.dims > 1 ? coords[1]! : 0, img.dims > 2 ? coords[2]! : 0, slice, out, level);
  for (let c = 0; c < 4; c++) out[c] = Math.fround(out[c]!);
}

/**
 * tld4 (tex2Dgather): channel `comp` of the four texels of the bilinear footprint, counter-
 * clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
 */
export function gather(bank: Bank, img: Image, sampler: Sampler, x: number, y: number, slice: number, comp: number, out: Rgba): void {
  const ux = (sampler.normalized ? x * img.width : x) - 0.5;
  const uy = (sampler.normalized ? y * img.height : y) - 0.5;
  const i = Math.floor(ux), j = Math.floor(uy);
  const at = (dx: number, dy: number): number => {
    const xi = addressIndex(i + dx, img.width, sampler.address[0], sampler.normalized);
    const yi = addressIndex(j + dy, img.height, sampler.address[1], sampler.normalized);
    texel(bank, img, sampler, xi, yi, 0, slice, T0);
    return T0[comp]!;
  };
  out[0] = Math.fround(at(0, 1));
  out[1] = Math.fround(at(1, 1));
  out[2] = Math.fround(at(1, 0));
  out[3] = Math.fround(at(0, 0));
}

/**
 * Cube map direction → face and 2D normalized coordinates (the Programming Guide's cubemap
 * table): the major axis picks the face (+x 0, -x 1, +y 2, -y 3, +z 4, -z 5).
 */
export function cubeFace(x: number, y: number, z: number): { face: number; s: number; t: number } {
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  let face: number, sc: number, tc: number, ma: number;
  if (ax >= ay && ax >= az) { ma = ax; face = x >= 0 ? 0 : 1; sc = x >= 0 ? -z : z; tc = -y; }
  else if (ay >= az) { ma = ay; face = y >= 0 ? 2 : 3; sc = x; tc = y >= 0 ? z : -z; }
  else { ma = az; face = z >= 0 ? 4 : 5; sc = z >= 0 ? x : -x; tc = -y; }
  if (ma === 0) return { face: 0, s: 0.5, t: 0.5 };
  return { face, s: (sc / ma + 1) / 2, t: (tc / ma + 1) / 2 };
}

/**
 * Face coordinates (sc, tc) and major axis ma of direction v on cube face `face`: the same
 * table as cubeFace, but for a given face, so that it is linear in v (and so in a gradient).
 */
function faceAxes(face: number, x: number, y: number, z: number): [number, number, number] {
  switch (face) {
    case 0: return [-z, -y, x];
    case 1: return [z, -y, -x];
    case 2: return [x, z, y];
    case 3: return [x, -z, -y];
    case 4: return [x, -y, z];
    default: return [-x, -y, -z];
  }
}

/**
 * The level of detail of a cube-map fetch at direction p with gradients dx, dy (tex.grad.cube):
 * the gradients of the face coordinates s = (sc/ma + 1)/2, t = (tc/ma + 1)/2 (quotient rule),
 * in texels of the face, then log2 of the longer footprint as for other geometries.
 */
export function lodOfCubeGradients(img: Image, p: readonly number[], dx: readonly number[], dy: readonly number[]): number {
  const { face } = cubeFace(p[0]!, p[1]!, p[2]!);
  const [sc, tc, ma] = faceAxes(face, p[0]!, p[1]!, p[2]!);
  if (ma === 0) return 0;
  const footprint = (d: readonly number[]): number => {
    const [dsc, dtc, dma] = faceAxes(face, d[0]!, d[1]!, d[2]!);
    const ds = (dsc * ma - sc * dma) / (2 * ma * ma);
    const dt = (dtc * ma - tc * dma) / (2 * ma * ma);
    return Math.hypot(ds * img.width, dt * img.width);
  };
  return Math.log2(Math.max(footprint(dx), footprint(dy)));
}

/** The level of detail that gradients give (the Programming Guide's tex2DGrad): log2 of the longer texel-space footprint. */
export function lodOfGradients(img: Image, dims: number, dx: readonly number[], dy: readonly number[], normalized: boolean): number {
  const n = [img.width, img.height, img.depth];
  let px = 0, py = 0;
  for (let d = 0; d < dims; d++) {
    const scale = normalized ? n[d]! : 1;
    px += (dx[d]! * scale) ** 2;
    py += (dy[d]! * scale) ** 2;
  }
  return Math.log2(Math.sqrt(Math.max(px, py)));
}

const T1: Rgba = [0, 0, 0, 0];

/**
 * Sample at level of detail `lod` (tex.level, tex.grad): clamped to the image's levels; the
 * nearest level (mipmapFilterMode point, ties up) or a blend of the two around it (linear).
 * Unnormalized coordinates address level 0 only, as Vulkan requires of them.
 */
export function sampleLod(bank: Bank, img: Image, sampler: Sampler, coords: readonly [number, number, number], slice: number, lod: number, out: Rgba): void {
  const top = (img.levels ?? 1) - 1;
  const l = !sampler.normalized || top === 0 || Number.isNaN(lod) ? 0 : Math.min(top, Math.max(0, lod));
  if (sampler.mipFilter !== 'linear') {
    sample(bank, img, sampler, coords, slice, out, Math.min(top, Math.floor(l + 0.5)));
    return;
  }
  const l0 = Math.floor(l), f = l - l0;
  sample(bank, img, sampler, coords, slice, out, l0);
  if (f === 0) return;
  sample(bank, img, sampler, coords, slice, T1, l0 + 1);
  for (let c = 0; c < 4; c++) out[c] = Math.fround((1 - f) * out[c]! + f * T1[c]!);
}

/** The level integer coordinates read at `lod` (nearest, clamped). */
export function fetchLevel(img: Image, lod: number): number {
  const top = (img.levels ?? 1) - 1;
  return Number.isNaN(lod) ? 0 : Math.min(top, Math.max(0, Math.floor(lod + 0.5)));
}
