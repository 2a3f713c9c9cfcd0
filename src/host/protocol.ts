/**
 * The wire between the replacement CUDA runtime (src/cudart/cudart.c) and ptxdbg: one request at
 * a time from the program, one reply from ptxdbg. Request {u32 op, u32 0, u64 length, payload};
 * reply {i32 status (a cudaError_t), u32 0, u64 length, payload}. Little-endian.
 */
export const enum Op {
  Hello = 1, Module, Malloc, Free, Write, Read, Copy, Set, Symbol, Kernel, Launch, Reset, Image, BulkWrite, BulkRead,
  /** A CUDA call failed (`ptxdbg sanitize`): u32 error, the host frames, then `api\0name\0text`. */
  ApiError,
  /** Where an allocation was made (`ptxdbg sanitize`): u64 pointer, then the host frames. */
  AllocSite,
  /** cudaMemGetInfo, totalGlobalMem: reply {u64 free, u64 total}. */
  MemInfo,
  /** Host-visible memory shared through a memory file (src/host/mapped.ts): map, pages in, pages out. */
  Map, SyncIn, SyncOut,
  /**
   * Whole-program recording (PTXDBG_SITES): the host call site of the request that follows,
   * {frames (backtrace.ts readFrames), then the API function's name}; reply empty.
   */
  Site,
}
export const PROTOCOL_VERSION = 1;
/** A request larger than this is not one the runtime sends (a copy is at most the device). */
const MAX_FRAME = 2 ** 31 + 64;
/** Frames from this size on are gathered in place (see FrameReader). */
const BIG_FRAME = 1 << 20;

export interface Frame { op: number; payload: Uint8Array }

/**
 * A request that does not follow the protocol: a payload shorter than its op's fields, an
 * unknown op (the program gets an error status and the connection goes on), or a frame whose
 * length cannot be right (the program gets an error status and the connection ends: the stream
 * cannot be cut into frames after it).
 */
export class ProtocolError extends Error {}

/**
 * Collects bytes from the socket and cuts them into frames. A large frame (a big copy) is
 * gathered straight into a buffer of its size as its chunks arrive.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private have = 0;
  /** The frame being gathered once its header is known: its buffer and bytes filled. */
  private big: { buf: Buffer; filled: number } | undefined;

  push(b: Buffer): void {
    if (this.big) {
      const take = Math.min(b.length, this.big.buf.length - this.big.filled);
      b.copy(this.big.buf, this.big.filled, 0, take);
      this.big.filled += take;
      if (take < b.length) { this.chunks.push(b.subarray(take)); this.have += b.length - take; }
      return;
    }
    this.chunks.push(b);
    this.have += b.length;
  }

  /** The next complete frame, or undefined until more bytes arrive. */
  next(): Frame | undefined {
    if (this.big) {
      if (this.big.filled < this.big.buf.length) return undefined;
      const all = this.big.buf;
      this.big = undefined;
      return { op: all.readUInt32LE(0), payload: new Uint8Array(all.buffer, all.byteOffset + 16, all.length - 16) };
    }
    if (this.have < 16) return undefined;
    const head = this.peek(16);
    const len = Number(head.readBigUInt64LE(8));
    // the exact u64 in the message (Number would round 2^64 - 1 to 18446744073709552000)
    if (len > MAX_FRAME) throw new ProtocolError(`a request of ${head.readBigUInt64LE(8)} bytes (at most ${MAX_FRAME}): the program is not speaking the ptxdbg runtime protocol`);
    if (this.have < 16 + len) {
      if (len >= BIG_FRAME) {
        // gather the rest in place instead of holding thousands of chunks
        let buf: Buffer;
        try {
          buf = Buffer.allocUnsafe(16 + len);
        } catch (e) {
          if (e instanceof RangeError) throw new ProtocolError(`a request of ${len} bytes does not fit in ptxdbg's memory`);
          throw e;
        }
        const got = Buffer.concat(this.chunks, this.have);
        got.copy(buf, 0);
        this.big = { buf, filled: got.length };
        this.chunks = [];
        this.have = 0;
      }
      return undefined;
    }
    const all = Buffer.concat(this.chunks, this.have);
    const op = all.readUInt32LE(0);
    const payload = new Uint8Array(all.buffer, all.byteOffset + 16, len);
    const rest = all.subarray(16 + len);
    this.chunks = rest.length ? [rest] : [];
    this.have = rest.length;
    return { op, payload };
  }

  /** A request begun but not complete: bytes received and the frame's size (when its header is in). */
  partial(): { have: number; want: number | undefined } | undefined {
    if (this.big) return { have: this.big.filled, want: this.big.buf.length };
    if (this.have === 0) return undefined;
    return { have: this.have, want: this.have >= 16 ? 16 + Number(this.peek(16).readBigUInt64LE(8)) : undefined };
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    const b = Buffer.concat(this.chunks, this.have);
    this.chunks = [b];
    return b;
  }
}

/**
 * A reply: its header and payload, written as they are (a large read is a view of device
 * memory, not copied: the program waits for the whole reply before it asks anything else).
 */
export function reply(status: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array[] {
  const head = Buffer.alloc(16);
  head.writeInt32LE(status, 0);
  head.writeBigUInt64LE(BigInt(payload.length), 8);
  return payload.length ? [head, payload] : [head];
}

/** Reads the fields of a payload in order. */
export class Fields {
  private off = 0;
  private readonly dv: DataView;
  constructor(private readonly b: Uint8Array) { this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength); }
  private need(n: number): number {
    if (this.off + n > this.b.length) throw new ProtocolError(`a request is shorter than its fields (${this.b.length} bytes)`);
    const o = this.off;
    this.off += n;
    return o;
  }
  u32(): number { return this.dv.getUint32(this.need(4), true); }
  u64(): bigint { return this.dv.getBigUint64(this.need(8), true); }
  f32(): number { return this.dv.getFloat32(this.need(4), true); }
  /** A u64 that is a byte count, bounded to what a Number holds exactly. */
  size(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtocolError(`a size of ${v} bytes`);
    return Number(v);
  }
  bytes(n: number): Uint8Array { const o = this.need(n); return this.b.subarray(o, o + n); }
  rest(): Uint8Array { return this.bytes(this.b.length - this.off); }
  remaining(): number { return this.b.length - this.off; }
  text(n?: number): string { return new TextDecoder().decode(n === undefined ? this.rest() : this.bytes(n)); }
}
