/**
 * Fragment-to-lane layouts of mma.sync (PTX ISA, "Matrix fragments for mma.mXnYkZ"). Element i of a
 * lane's A, B or C/D fragment maps to (row, col) of its tile; g = groupID = lane >> 2,
 * t = threadID_in_group = lane % 4.
 */
export type Pos = (lane: number, i: number) => readonly [number, number];

/** Shape and input type of an mma: tile sizes, elements per lane and where each goes. */
export interface Geometry {
  readonly m: number; readonly n: number; readonly k: number;
  /** Bits per A/B element in its register (8, 16, 32 or 64). */
  readonly bits: number;
  readonly aElems: number; readonly bElems: number; readonly cElems: number;
  readonly a: Pos; readonly b: Pos; readonly c: Pos;
}

const g = (l: number): number => l >> 2;
const t = (l: number): number => l & 3;

/** C/D of every m16n8 shape: c0,c1 in row g, c2,c3 in row g+8; columns 2t, 2t+1. */
const c16x8: Pos = (l, i) => [g(l) + (i >= 2 ? 8 : 0), t(l) * 2 + (i & 1)];

const GEOMETRIES: Record<string, Geometry> = {
  // .f16 / .bf16
  'm16n8k8/16': {
    m: 16, n: 8, k: 8, bits: 16, aElems: 4, bElems: 2, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + (i >= 2 ? 8 : 0), t(l) * 2 + (i & 1)],
    b: (l, i) => [t(l) * 2 + i, g(l)],
  },
  'm16n8k16/16': {
    m: 16, n: 8, k: 16, bits: 16, aElems: 8, bElems: 4, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + ((i >> 1) & 1) * 8, t(l) * 2 + (i & 1) + (i >= 4 ? 8 : 0)],
    b: (l, i) => [t(l) * 2 + (i & 1) + (i >= 2 ? 8 : 0), g(l)],
  },
  // .tf32
  'm16n8k4/32': {
    m: 16, n: 8, k: 4, bits: 32, aElems: 2, bElems: 1, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + i * 8, t(l)],
    b: (l) => [t(l), g(l)],
  },
  'm16n8k8/32': {
    m: 16, n: 8, k: 8, bits: 32, aElems: 4, bElems: 2, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + (i & 1) * 8, t(l) + (i >= 2 ? 4 : 0)],
    b: (l, i) => [t(l) + i * 4, g(l)],
  },
  // .s8 / .u8
  'm16n8k16/8': {
    m: 16, n: 8, k: 16, bits: 8, aElems: 8, bElems: 4, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + (i >= 4 ? 8 : 0), t(l) * 4 + (i & 3)],
    b: (l, i) => [t(l) * 4 + i, g(l)],
  },
  'm16n8k32/8': {
    m: 16, n: 8, k: 32, bits: 8, aElems: 16, bElems: 8, cElems: 4, c: c16x8,
    a: (l, i) => [g(l) + ((i >> 2) & 1) * 8, t(l) * 4 + (i & 3) + (i >= 8 ? 16 : 0)],
    b: (l, i) => [t(l) * 4 + (i & 3) + (i >= 4 ? 16 : 0), g(l)],
  },
  // .f64
  'm8n8k4/64': {
    m: 8, n: 8, k: 4, bits: 64, aElems: 1, bElems: 1, cElems: 2,
    a: (l) => [g(l), t(l)],
    b: (l) => [t(l), g(l)],
    c: (l, i) => [g(l), t(l) * 2 + i],
  },
};

/**
 * The integer shapes share one pattern per register (ISA figures for .s8/.u8, .s4/.u4 and .b1):
 * a 32-bit register holds `per` = 32/bits consecutive k-elements. m16n8kK: A register j covers
 * row g (+8 for odd j), columns t*per .. t*per+per-1 (+K/2 for j >= 2); B register j covers rows
 * t*per .. (+K/2 for j >= 1) of column g. m8n8kK: one A and one B register, C as f64's.
 */
function packed16(k: number, bits: number): Geometry {
  const per = 32 / bits;
  return {
    m: 16, n: 8, k, bits, aElems: k / 2, bElems: k / 4, cElems: 4, c: c16x8,
    a: (l, i) => { const j = Math.floor(i / per); return [g(l) + (j & 1) * 8, t(l) * per + (i % per) + (j >= 2 ? k / 2 : 0)]; },
    b: (l, i) => { const j = Math.floor(i / per); return [t(l) * per + (i % per) + j * (k / 2), g(l)]; },
  };
}
function packed8(bits: number): Geometry {
  const per = 32 / bits;
  return {
    m: 8, n: 8, k: 4 * per, bits, aElems: per, bElems: per, cElems: 2,
    a: (l, i) => [g(l), t(l) * per + i],
    b: (l, i) => [t(l) * per + i, g(l)],
    c: (l, i) => [g(l), t(l) * 2 + i],
  };
}
GEOMETRIES['m8n8k16/8'] = packed8(8);
GEOMETRIES['m8n8k32/4'] = packed8(4);
GEOMETRIES['m8n8k128/1'] = packed8(1);
GEOMETRIES['m16n8k32/4'] = packed16(32, 4);
GEOMETRIES['m16n8k64/4'] = packed16(64, 4);
GEOMETRIES['m16n8k128/1'] = packed16(128, 1);
GEOMETRIES['m16n8k256/1'] = packed16(256, 1);

export function geometry(shape: string, bits: number): Geometry | undefined {
  return GEOMETRIES[`${shape}/${bits}`];
}
