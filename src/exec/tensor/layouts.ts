/**
 * Fragment-to-lane layouts of mma.sync for the half-precision shapes (PTX ISA, "Matrix fragments
 * for mma.m16n8k8 / mma.m16n8k16"). Element i of a lane's fragment maps to (row, col) of the tile.
 * groupID = lane >> 2, threadID_in_group = lane % 4.
 */
export interface RC { row: number; col: number }

/** A (16 x K, row-major fragment), K = 8 or 16, f16/bf16: elements a0..a(K/2-1). */
export function aF16(k: number, lane: number, i: number): RC {
  const g = lane >> 2, t = lane & 3;
  const row = g + ((i >> 1) & 1) * 8;
  const col = t * 2 + (i & 1) + (k === 16 && i >= 4 ? 8 : 0);
  return { row, col };
}

/** B (K x 8), f16/bf16: elements b0..b(K/4-1). */
export function bF16(_k: number, lane: number, i: number): RC {
  const g = lane >> 2, t = lane & 3;
  return { row: t * 2 + (i & 1) + (i >= 2 ? 8 : 0), col: g };
}

/** C/D (16 x 8): elements c0..c3 (f32: one per register; f16: two per register). */
export function cAcc(lane: number, i: number): RC {
  const g = lane >> 2, t = lane & 3;
  return { row: g + (i >= 2 ? 8 : 0), col: t * 2 + (i & 1) };
}
