/**
 * Texture and surface images: their texel formats, extents and sampler settings (what a CUDA
 * program gives cudaCreateTextureObject / cudaCreateSurfaceObject), and the table that maps the
 * 64-bit handles a kernel receives, or the module's `.texref`/`.surfref` names, to them.
 * Texels live in the global arena (row-major, x fastest, then y, z, layer), so surface writes are
 * recorded, checkpointed and race-checked like any global store.
 */
import type { ImageSpec } from './spec.js';

/** How a channel is stored: unsigned/signed integers of 8/16/32 bits, half or float. */
export type ChannelKind = 'unsigned' | 'signed' | 'float';

export interface TexelFormat {
  readonly name: string;
  readonly kind: ChannelKind;
  readonly bits: 8 | 16 | 32;
  readonly channels: 1 | 2 | 4;
}

export type AddressMode = 'clamp' | 'wrap' | 'mirror' | 'border';

export interface Sampler {
  /** Per dimension x, y, z. */
  readonly address: readonly [AddressMode, AddressMode, AddressMode];
  readonly filter: 'point' | 'linear';
  readonly normalized: boolean;
  /** cudaReadModeNormalizedFloat: 8/16-bit integers read as [0,1] / [-1,1] floats. */
  readonly readMode: 'element' | 'normalizedFloat';
  readonly border: readonly [number, number, number, number];
  /** cudaTextureDesc.mipmapFilterMode: the nearest mip level, or a blend of the two around the LOD (default point). */
  readonly mipFilter?: 'point' | 'linear';
}

/** An image of the launch (spec.ts) placed in device memory, under the name the launch gave it. */
export type Image = Omit<ImageSpec, 'init'> & {
  readonly name: string;
  /** Offset of texel (0,0,0, layer 0) in the global arena. */
  base: number;
  /** Bytes from row to row when not packed (a pitched or linear resource of a program). */
  readonly rowPitch?: number;
};

export const DEFAULT_SAMPLER: Sampler = {
  address: ['clamp', 'clamp', 'clamp'], filter: 'point', normalized: false, readMode: 'element', border: [0, 0, 0, 0],
};

const FORMATS: Record<string, Omit<TexelFormat, 'name' | 'channels'>> = {
  char: { kind: 'signed', bits: 8 }, uchar: { kind: 'unsigned', bits: 8 },
  short: { kind: 'signed', bits: 16 }, ushort: { kind: 'unsigned', bits: 16 },
  int: { kind: 'signed', bits: 32 }, uint: { kind: 'unsigned', bits: 32 },
  half: { kind: 'float', bits: 16 }, float: { kind: 'float', bits: 32 },
};

/** `float`, `uchar4`, `half2`, `int`... (CUDA's vector type names); undefined when not one. */
export function parseFormat(name: string): TexelFormat | undefined {
  const m = /^(u?char|u?short|u?int|half|float)([124])?$/.exec(name);
  if (!m) return undefined;
  const f = FORMATS[m[1]!]!;
  return { name, ...f, channels: Number(m[2] ?? 1) as 1 | 2 | 4 };
}

export const FORMAT_NAMES = 'char uchar short ushort int uint half float, with 2 or 4 for vectors (uchar4, float2)';

export function texelBytes(f: TexelFormat): number {
  return (f.bits / 8) * f.channels;
}

type Extent = Pick<Image, 'width' | 'height' | 'depth' | 'layers' | 'cube'> & { readonly levels?: number };

/** Width, height, depth of mip level `level`: each halves (rounding down) to at least 1. */
export function levelExtent(img: Extent, level: number): [number, number, number] {
  return [Math.max(1, img.width >> level), Math.max(1, img.height >> level), Math.max(1, img.depth >> level)];
}

/** Texels of mip levels 0 .. n-1 (all faces and layers). */
function texelsBelow(img: Extent, n: number): number {
  let t = 0;
  for (let l = 0; l < n; l++) {
    const [w, h, d] = levelExtent(img, l);
    t += w * h * d;
  }
  return t * img.layers * (img.cube ? 6 : 1);
}

/** Texels in the whole image (all mip levels, faces and layers). */
export function texelCount(img: Extent): number {
  return texelsBelow(img, img.levels ?? 1);
}

/** Texels before mip level `level` (levels are stored one after another, level 0 first). */
export function levelStart(img: Extent, level: number): number {
  return level === 0 ? 0 : texelsBelow(img, level);
}

/** Handles given to kernels: a tag in the high word keeps them apart from pointers and from 0. */
export const HANDLE_HI = 0x7a00_0000;

/** The images of a launch, by handle (texture/surface objects) and by `.texref`/`.surfref` name. */
export class ImageTable {
  readonly images: Image[] = [];
  private readonly byName = new Map<string, number>();
  private readonly samplers = new Map<string, Sampler>();

  addSampler(name: string, s: Sampler): void {
    this.samplers.set(name, s);
  }

  /** A `.samplerref` bound by the launch (independent texture mode). */
  samplerByRef(name: string): Sampler | undefined {
    return this.samplers.get(name);
  }

  add(img: Image, refName?: string): bigint {
    this.images.push(img);
    if (refName !== undefined) this.byName.set(refName, this.images.length - 1);
    return (BigInt(HANDLE_HI) << 32n) | BigInt(this.images.length);
  }

  /** The image a 64-bit handle names, or undefined (a bad handle faults). */
  byHandle(lo: number, hi: number): Image | undefined {
    if (hi >>> 0 !== HANDLE_HI) return undefined;
    return this.images[(lo >>> 0) - 1];
  }

  byRef(name: string): Image | undefined {
    const i = this.byName.get(name);
    return i === undefined ? undefined : this.images[i];
  }

  /** The table as plain data (worker threads rebuild it with fromState; texels stay in the arena). */
  state(): ImageTableState {
    return {
      images: this.images.map((im) => {
        // a launch file's image keeps its initial texels on the object: not needed past layout
        const { init: _init, ...rest } = im as Image & { init?: unknown };
        return rest;
      }),
      byName: [...this.byName],
      samplers: [...this.samplers],
    };
  }

  static fromState(s: ImageTableState): ImageTable {
    const t = new ImageTable();
    t.images.push(...s.images);
    for (const [n, i] of s.byName) t.byName.set(n, i);
    for (const [n, x] of s.samplers) t.samplers.set(n, x);
    return t;
  }
}

/** ImageTable.state(): structured-clonable. */
export interface ImageTableState {
  readonly images: readonly Image[];
  readonly byName: readonly (readonly [string, number])[];
  readonly samplers: readonly (readonly [string, Sampler])[];
}
