/**
 * A scripted client of ptxdbg's runtime protocol (src/host/protocol.ts), written independently
 * of the server: it builds request frames byte by byte, talks to serveProgram over an in-memory
 * stream pair, and knows from its own framing how many replies the server owes it. Used by the
 * wire tests (test/host/wire.test.ts) and the `wire` fuzz kind (test/fuzz/wire.ts).
 */
import { Duplex } from 'node:stream';
import { Device, type LaunchRequest } from '../../src/host/device.js';
import { CudaError } from '../../src/host/errors.js';
import { serveProgram } from '../../src/host/server.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';

/** Request ops as the runtime numbers them (src/cudart/cudart.c enum OP_*). */
export const OP = {
  hello: 1, module: 2, malloc: 3, free: 4, write: 5, read: 6, copy: 7, set: 8, symbol: 9, kernel: 10, launch: 11, reset: 12, image: 13, bulkWrite: 14, bulkRead: 15,
  apiError: 16, allocSite: 17, memInfo: 18, map: 19, syncIn: 20, syncOut: 21, site: 22,
} as const;
/** The largest request the server gathers (protocol.ts MAX_FRAME). */
export const MAX_FRAME = 2 ** 31 + 64;

/** A kernel doubling p[threadIdx.x] and a variable (the wire tests' and the wire fuzzer's module). */
export const TWICE_PTX = `.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 counter = 5;
.visible .entry twice(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.u32 %r3, %r2, %r2;
  st.global.u32 [%rd3], %r3;
  ret;
}
`;

export { fatbin } from './fatbin-fixture.js';

/** Little-endian fields in order: [bytes, 'u32' | 'u64' | 'f32'] pairs or raw bytes. */
export function fields(...parts: ([number | bigint, 'u32' | 'u64' | 'f32'] | Uint8Array | string)[]): Uint8Array {
  const chunks = parts.map((p) => {
    if (typeof p === 'string') return new TextEncoder().encode(p);
    if (p instanceof Uint8Array) return p;
    const [v, t] = p;
    const b = new Uint8Array(t === 'u64' ? 8 : 4);
    const dv = new DataView(b.buffer);
    if (t === 'u64') dv.setBigUint64(0, BigInt.asUintN(64, BigInt(v)), true);
    else if (t === 'f32') dv.setFloat32(0, Number(v), true);
    else dv.setUint32(0, Number(v) >>> 0, true);
    return b;
  });
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) { out.set(c, o); o += c.length; }
  return out;
}

/** One request frame: {u32 op, u32 0, u64 length, payload}; `length` overrides the true one. */
export function frame(op: number, payload: Uint8Array, length?: bigint): Uint8Array {
  const out = new Uint8Array(16 + payload.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, op >>> 0, true);
  dv.setBigUint64(8, length ?? BigInt(payload.length), true);
  out.set(payload, 16);
  return out;
}

export interface Reply { status: number; payload: Uint8Array }

/** Two connected in-memory streams: what one writes, the other reads. */
function streamPair(): [Duplex, Duplex] {
  const make = (): Duplex & { peer?: Duplex } => new Duplex({
    read() { /* pushed by the peer */ },
    write(chunk: Buffer, _enc, cb) { (this as Duplex & { peer?: Duplex }).peer!.push(chunk); cb(); },
    final(cb) { (this as Duplex & { peer?: Duplex }).peer!.push(null); cb(); },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  // a destroyed end closes its peer, as a socket's close reaches the other side
  a.on('close', () => { if (!b.destroyed) b.destroy(); });
  b.on('close', () => { if (!a.destroyed) a.destroy(); });
  return [a, b];
}

/**
 * A server (a fresh Device, launches run with a small step budget) and a client end. `pid` is
 * the process whose descriptors bulk-copy requests name.
 */
export class WireSession {
  readonly device = new Device();
  readonly lines: string[] = [];
  readonly replies: Reply[] = [];
  /** The server's promise: resolves when the connection ends, rejects on an internal error. */
  readonly served: Promise<void>;
  private readonly client: Duplex;
  private pending = new Uint8Array(0);
  private sent = new Uint8Array(0);
  /** Replies the server owes for the complete frames sent (by this client's own framing). */
  owed = 0;
  /** A frame header the server must refuse outright (its length past MAX_FRAME): it ends the connection. */
  oversized = false;
  ended = false;
  private wake: (() => void) | undefined;

  constructor(pid: number | undefined, maxSteps = 20_000) {
    const [server, client] = streamPair();
    this.client = client;
    const onLaunch = (r: LaunchRequest): { status: number; stdout: string } => {
      try {
        const { result } = this.device.run(r, { ...DEFAULT_RUN_OPTIONS, maxSteps, heapBytes: 1 << 16 });
        return { status: result.fault ? 719 : 0, stdout: result.stdout };
      } catch (e) {
        if (e instanceof CudaError) return { status: e.code, stdout: '' };
        throw e;
      }
    };
    this.served = serveProgram(server, this.device, 'wire', onLaunch, (l) => this.lines.push(l), pid);
    client.on('data', (b: Buffer) => { this.take(b); });
    client.on('end', () => { this.ended = true; this.wake?.(); });
    client.on('close', () => { this.ended = true; this.wake?.(); });
    client.on('error', () => { this.ended = true; this.wake?.(); });
  }

  private take(b: Buffer): void {
    const all = new Uint8Array(this.pending.length + b.length);
    all.set(this.pending);
    all.set(b, this.pending.length);
    let o = 0;
    while (all.length - o >= 16) {
      const dv = new DataView(all.buffer, all.byteOffset + o);
      const len = Number(dv.getBigUint64(8, true));
      if (all.length - o < 16 + len) break;
      this.replies.push({ status: dv.getInt32(0, true), payload: all.slice(o + 16, o + 16 + len) });
      o += 16 + len;
    }
    this.pending = all.slice(o);
    this.wake?.();
  }

  /** Send bytes (any part of any frames); counts the frames they complete. */
  send(bytes: Uint8Array): void {
    if (this.ended || this.oversized) return;
    const all = new Uint8Array(this.sent.length + bytes.length);
    all.set(this.sent);
    all.set(bytes, this.sent.length);
    let o = 0;
    while (all.length - o >= 16) {
      const len = new DataView(all.buffer, all.byteOffset + o).getBigUint64(8, true);
      if (len > BigInt(MAX_FRAME)) { this.oversized = true; this.owed++; break; }
      if (BigInt(all.length - o) < 16n + len) break;
      this.owed++;
      o += 16 + Number(len);
    }
    this.sent = all.slice(o);
    this.client.write(bytes);
  }

  /** Wait until every owed reply came (and, after an oversized frame, the end) or the server ended the connection. */
  async settle(): Promise<void> {
    while ((this.replies.length < this.owed || this.oversized) && !this.ended) {
      await new Promise<void>((r) => { this.wake = r; });
      this.wake = undefined;
    }
  }

  /** One request and its reply (undefined when the connection ended instead). */
  async call(op: number, payload: Uint8Array): Promise<Reply | undefined> {
    const before = this.replies.length;
    this.send(frame(op, payload));
    await this.settle();
    return this.replies[before];
  }

  /** Close the client's end; resolves when the server has finished (rejects on its internal error). */
  async close(): Promise<void> {
    this.client.end();
    this.client.destroy();
    await this.served;
  }
}
