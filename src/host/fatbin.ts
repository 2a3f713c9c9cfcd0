/**
 * nvcc's fatbinary container (the `.nv_fatbin` section of a CUDA program): one or more blobs
 * (magic 0xBA55ED50), each a list of entries — PTX text (kind 1) or a cubin ELF (kind 2) for one
 * architecture. Entries may be compressed: CUDA 13 uses zstd (flag 0x8000, decoded with fzstd),
 * older toolkits an LZ4-style block format (flag 0x2000), decoded here. Layout learnt from the
 * bytes nvcc writes and from public notes on the format; every problem is a located FatbinError.
 */
import { decompress as zstd } from 'fzstd';

export class FatbinError extends Error {}

const BLOB_MAGIC = 0xba55ed50;
const FLAG_LZ = 0x2000n;
const FLAG_ZSTD = 0x8000n;
/** An entry larger than this is not one nvcc wrote (it bounds the decompression buffer). */
const MAX_ENTRY = 1 << 30;

export interface FatbinEntry {
  readonly kind: 'ptx' | 'elf' | 'unknown';
  /** sm_XX / compute_XX number (80 for sm_80). */
  readonly arch: number;
  /** PTX ISA version for PTX entries (major, minor). */
  readonly version: readonly [number, number];
  readonly flags: bigint;
  readonly compression: 'none' | 'zstd' | 'lz';
  /** The entry's bytes, decompressed (PTX text ends with NULs, which are removed). */
  readonly data: Uint8Array;
  /** Offset of the entry header in the container. */
  readonly offset: number;
  /** Which blob of the container holds it (0 for the first). */
  readonly blob: number;
}

export function parseFatbin(b: Uint8Array): FatbinEntry[] {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: FatbinEntry[] = [];
  let pos = 0;
  let blob = -1;
  while (pos + 16 <= b.length) {
    if (dv.getUint32(pos, true) !== BLOB_MAGIC) {
      // blobs are 8-byte aligned; zero padding may sit between them
      if (dv.getUint32(pos, true) === 0) { pos += 8; continue; }
      throw new FatbinError(`fatbin: bad magic 0x${dv.getUint32(pos, true).toString(16)} at offset 0x${pos.toString(16)}`);
    }
    const headerSize = dv.getUint16(pos + 6, true);
    const size = Number(dv.getBigUint64(pos + 8, true));
    const end = pos + headerSize + size;
    blob++;
    if (headerSize < 16 || end > b.length) throw new FatbinError(`fatbin: blob at 0x${pos.toString(16)} claims ${size} bytes, past the end of the data`);
    let off = pos + headerSize;
    while (off + 64 <= end) {
      const kindCode = dv.getUint16(off, true);
      const hsz = dv.getUint32(off + 4, true);
      const payload = Number(dv.getBigUint64(off + 8, true));
      const compressedSize = dv.getUint32(off + 16, true);
      const minor = dv.getUint16(off + 24, true);
      const major = dv.getUint16(off + 26, true);
      const arch = dv.getUint32(off + 28, true);
      const flags = dv.getBigUint64(off + 40, true);
      const decompressed = hsz >= 64 ? Number(dv.getBigUint64(off + 56, true)) : 0;
      if (hsz < 64 || off + hsz + payload > end) throw new FatbinError(`fatbin: entry at 0x${off.toString(16)} runs past its blob`);
      const body = b.subarray(off + hsz, off + hsz + payload);
      const compression = flags & FLAG_ZSTD ? 'zstd' : flags & FLAG_LZ ? 'lz' : 'none';
      let data: Uint8Array;
      try {
        if (compression === 'zstd') data = zstd(body.subarray(0, compressedSize || payload));
        else if (compression === 'lz') data = lzDecode(body.subarray(0, compressedSize || payload), decompressed, off);
        else data = body;
      } catch (e) {
        if (e instanceof FatbinError) throw e;
        throw new FatbinError(`fatbin: entry at 0x${off.toString(16)}: cannot decompress (${compression}): ${(e as Error).message}`);
      }
      const kind = kindCode === 1 ? 'ptx' : kindCode === 2 ? 'elf' : 'unknown';
      if (kind === 'ptx') {
        let n = data.length;
        while (n > 0 && data[n - 1] === 0) n--;
        data = data.subarray(0, n);
      }
      out.push({ kind, arch, version: [major, minor], flags, compression, data, offset: off, blob });
      off += hsz + payload;
    }
    pos = end;
  }
  return out;
}

/**
 * The LZ-style block format of older nvcc: a token byte (literal count in the high nibble, match
 * length - 4 in the low one, 15 meaning "more bytes follow, each added, until one is not 255"),
 * the literals, a 2-byte little-endian back offset, then the match copied (it may overlap).
 */
export function lzDecode(input: Uint8Array, size: number, at = 0): Uint8Array {
  if (size < 0 || size > MAX_ENTRY) throw new FatbinError(`fatbin: entry at 0x${at.toString(16)}: decompressed size ${size} is out of range`);
  const out = new Uint8Array(size);
  let ip = 0, op = 0;
  const bad = (what: string): never => { throw new FatbinError(`fatbin: entry at 0x${at.toString(16)}: ${what} at compressed byte ${ip}`); };
  while (ip < input.length) {
    const token = input[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let x;
      do { if (ip >= input.length) bad('truncated literal length'); x = input[ip++]!; lit += x; } while (x === 255);
    }
    if (ip + lit > input.length || op + lit > size) bad('literals past the end');
    out.set(input.subarray(ip, ip + lit), op);
    ip += lit;
    op += lit;
    if (ip >= input.length || op >= size) break;
    if (ip + 2 > input.length) bad('truncated match offset');
    const back = input[ip]! | (input[ip + 1]! << 8);
    ip += 2;
    let len = (token & 15) + 4;
    if (len === 19) {
      let x;
      do { if (ip >= input.length) bad('truncated match length'); x = input[ip++]!; len += x; } while (x === 255);
    }
    if (back === 0 || back > op) bad(`match offset ${back} before the start of the output`);
    if (op + len > size) bad('match past the end of the output');
    for (let k = 0; k < len; k++, op++) out[op] = out[op - back]!;
  }
  return out.subarray(0, op);
}
