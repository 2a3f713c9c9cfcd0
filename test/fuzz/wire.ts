/**
 * The `wire` fuzz kind: a scripted client speaks the runtime protocol to ptxdbg's server (over an
 * in-memory stream pair, test/host/wire-client.ts) with frames a hostile or broken program could
 * send: bytes and fields replaced by extreme values, lengths that lie, unknown ops, truncated
 * streams, frames dropped, repeated and reordered, bulk copies naming descriptors that are not
 * memory files, shared ranges that are not. The server must answer every complete frame in order (or refuse a frame whose
 * length cannot be right and end the connection), never throw, and end when the client does.
 */
import fc from 'fast-check';
import { fatbin, fields, frame, OP, type Reply, TWICE_PTX, WireSession } from '../host/wire-client.js';
import type { Outcome } from './targets.js';

export type WireOp =
  | { k: 'byte'; frame: number; at: number; value: number }
  | { k: 'length'; frame: number; value: bigint }
  | { k: 'op'; frame: number; value: number }
  | { k: 'field'; frame: number; at: number; value: bigint; wide: boolean }
  | { k: 'append'; frame: number; n: number; counted: boolean }
  | { k: 'truncate'; frame: number; at: number }
  | { k: 'swap'; a: number; b: number }
  | { k: 'dup'; frame: number }
  | { k: 'drop'; frame: number };

/** `fd`: the descriptor bulk copies name; null: the session makes none (no memory file to name). */
export interface WireInput { readonly ops: readonly WireOp[]; readonly fd: number | null }

/** Values a hostile field takes: edges of u32/u64, sizes past the device, the window's base. */
const EXTREME = [0n, 1n, 3n, 4n, 255n, 4096n, 65536n, 2n ** 31n - 1n, 2n ** 31n + 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n, 0x7f0000000000n, 0x7c0000000000n];
const extreme = fc.oneof(fc.constantFrom(...EXTREME), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.integer({ min: 0, max: 300 }).map(BigInt));
const at = fc.nat({ max: 1 << 20 });
const step = fc.nat({ max: 63 });

const wireOp: fc.Arbitrary<WireOp> = fc.oneof(
  fc.record({ k: fc.constant('byte' as const), frame: step, at, value: fc.nat({ max: 255 }) }),
  fc.record({ k: fc.constant('length' as const), frame: step, value: fc.oneof(extreme, fc.constantFrom(2n ** 31n + 65n, 2n ** 40n)) }),
  fc.record({ k: fc.constant('op' as const), frame: step, value: fc.oneof(fc.constantFrom(0, 23, 99, 2 ** 32 - 1), fc.integer({ min: 1, max: 22 })) }),
  fc.record({ k: fc.constant('field' as const), frame: step, at, value: extreme, wide: fc.boolean() }),
  fc.record({ k: fc.constant('append' as const), frame: step, n: fc.nat({ max: 300 }), counted: fc.boolean() }),
  fc.record({ k: fc.constant('truncate' as const), frame: step, at }),
  fc.record({ k: fc.constant('swap' as const), a: step, b: step }),
  fc.record({ k: fc.constant('dup' as const), frame: step }),
  fc.record({ k: fc.constant('drop' as const), frame: step }),
);

/** Bulk-copy descriptors: the fuzzer's own stdio, others it may hold, closed ones, and -1. */
export const wireInputs = (): fc.Arbitrary<WireInput> => fc.record({
  ops: fc.array(wireOp, { minLength: 1, maxLength: 4 }),
  fd: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, fc.constantFrom(0, 1, 2, 3, 7, 19, 999, 2 ** 32 - 1)),
});

/** What the script remembers from replies: the allocations it made. */
interface Ctx { a: bigint; b: bigint; managed: bigint; fd: number | null }

const u64At = (r: Reply | undefined, fallback: bigint): bigint =>
  r && r.status === 0 && r.payload.length >= 8 ? new DataView(r.payload.buffer, r.payload.byteOffset).getBigUint64(0, true) : fallback;
const launchOf = (p: bigint): Uint8Array =>
  fields([0, 'u32'], [1, 'u32'], [1, 'u32'], [1, 'u32'], [4, 'u32'], [1, 'u32'], [1, 'u32'], [0, 'u32'], [0, 'u32'], [5, 'u32'], [8, 'u32'], [0, 'u32'], 'twice', fields([p, 'u64']));

/**
 * The well-formed session every input mutates: each step an op and its payload (built when it
 * is sent, from the pointers earlier replies gave) and what to keep from its reply.
 */
const SCRIPT: { op: number; payload: (c: Ctx) => Uint8Array; keep?: (c: Ctx, r: Reply | undefined) => void }[] = [
  { op: OP.hello, payload: () => fields([1, 'u32']) },
  { op: OP.module, payload: () => fatbin(TWICE_PTX) },
  { op: OP.malloc, payload: () => fields([64, 'u64'], [0, 'u32']), keep: (c, r) => { c.a = u64At(r, c.a); } },
  { op: OP.malloc, payload: () => fields([64, 'u64'], [0, 'u32']), keep: (c, r) => { c.b = u64At(r, c.b); } },
  { op: OP.malloc, payload: () => fields([4096, 'u64'], [1, 'u32']), keep: (c, r) => { c.managed = u64At(r, c.managed); } },
  { op: OP.write, payload: (c) => fields([c.a, 'u64'], new Uint8Array(64).fill(3)) },
  { op: OP.copy, payload: (c) => fields([c.b, 'u64'], [c.a, 'u64'], [64, 'u64']) },
  { op: OP.set, payload: (c) => fields([c.managed, 'u64'], [128, 'u64'], [0x5a, 'u32']) },
  { op: OP.kernel, payload: () => fields([0, 'u32'], 'twice') },
  { op: OP.symbol, payload: () => fields([0, 'u32'], 'counter') },
  { op: OP.launch, payload: (c) => launchOf(c.a) },
  { op: OP.read, payload: (c) => fields([c.a, 'u64'], [64, 'u64']) },
  { op: OP.bulkWrite, payload: (c) => fields([c.b, 'u64'], [64, 'u64'], [c.fd ?? 0, 'u32']) },
  { op: OP.bulkRead, payload: (c) => fields([c.b, 'u64'], [64, 'u64'], [c.fd ?? 0, 'u32']) },
  {
    op: OP.image, payload: (c) => fields([c.a, 'u64'], ...[0, 2, 32, 1, 2, 4, 4, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0].map((v) => [v, 'u32'] as [number, 'u32']),
      ...[0, 0, 0, 0].map((v) => [v, 'f32'] as [number, 'f32'])),
  },
  { op: OP.map, payload: (c) => fields([c.managed, 'u64'], [4096, 'u64'], [c.fd ?? 0, 'u32']) },
  { op: OP.syncIn, payload: (c) => fields([1, 'u32'], [c.managed, 'u64'], [4096, 'u64']) },
  { op: OP.free, payload: (c) => fields([c.b, 'u64']) },
  { op: OP.launch, payload: (c) => launchOf(c.managed) },
  { op: OP.syncOut, payload: () => new Uint8Array(0) },
  { op: OP.read, payload: (c) => fields([c.managed, 'u64'], [4, 'u64']) },
  { op: OP.reset, payload: () => new Uint8Array(0) },
  { op: OP.hello, payload: () => fields([1, 'u32']) },
];

/** The steps that name a descriptor (left out when the input has none). */
const NAMES_FD: readonly number[] = [OP.bulkWrite, OP.bulkRead, OP.map, OP.syncIn];

const looksInternal = (text: string): boolean => /internal error|Maximum call stack size exceeded|is not a function|Cannot read properties|is not defined|\bNaN\b/.test(text);

/** Apply the frame-level edits (byte, length, op, field, append, truncate) to one built frame. */
function edit(bytes: Uint8Array, ops: readonly WireOp[], index: number): { bytes: Uint8Array; truncated: boolean } {
  let b = bytes;
  let truncated = false;
  // a cut comes last: the other edits address the whole frame (its header included)
  for (const o of [...ops.filter((x) => x.k !== 'truncate'), ...ops.filter((x) => x.k === 'truncate')]) {
    if (!('frame' in o) || o.frame % SCRIPT.length !== index % SCRIPT.length || o.k === 'dup' || o.k === 'drop') continue;
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (o.k) {
      case 'byte': b[o.at % b.length] = o.value; break;
      case 'length': dv.setBigUint64(8, o.value, true); break;
      case 'op': dv.setUint32(0, o.value >>> 0, true); break;
      case 'field': {
        const payload = b.length - 16;
        const width = o.wide ? 8 : 4;
        if (payload < width) break;
        const off = 16 + (o.at % (payload - width + 1));
        if (o.wide) dv.setBigUint64(off, o.value, true);
        else dv.setUint32(off, Number(o.value & 0xffffffffn), true);
        break;
      }
      case 'append': {
        const n = new Uint8Array(b.length + o.n);
        n.set(b);
        for (let i = 0; i < o.n; i++) n[b.length + i] = (i * 37 + 11) & 255;
        if (o.counted) new DataView(n.buffer).setBigUint64(8, dv.getBigUint64(8, true) + BigInt(o.n), true);
        b = n;
        break;
      }
      case 'truncate': b = b.slice(0, o.at % b.length); truncated = true; break;
    }
  }
  return { bytes: tame(b), truncated };
}

/** Allocations the fuzzer keeps small (see tame). */
const MAX_FUZZ_ALLOC = 64n << 20n;

/**
 * A cudaMalloc up to the device's 2 GiB is a request ptxdbg must honour, and one costs seconds
 * (the arena grows and is zeroed): not a protocol edge, so the fuzzer keeps its allocations under
 * 64 MiB (a larger size that the device would refuse anyway stays as it is).
 */
function tame(b: Uint8Array): Uint8Array {
  if (b.length < 24) return b;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (dv.getUint32(0, true) !== OP.malloc) return b;
  const size = dv.getBigUint64(16, true);
  if (size > MAX_FUZZ_ALLOC && size <= 2n ** 31n) dv.setBigUint64(16, size % MAX_FUZZ_ALLOC, true);
  return b;
}

export async function runWire(input: WireInput): Promise<Outcome> {
  // the order of the script's steps after drops, repeats and swaps
  const order = SCRIPT.map((_, i) => i).filter((i) => input.fd !== null || !NAMES_FD.includes(SCRIPT[i]!.op));
  for (const o of input.ops) {
    if (o.k === 'swap') {
      const a = o.a % order.length;
      const b = o.b % order.length;
      [order[a], order[b]] = [order[b]!, order[a]!];
    } else if (o.k === 'dup') order.splice(o.frame % order.length, 0, order[o.frame % order.length]!);
    else if (o.k === 'drop' && order.length > 1) order.splice(o.frame % order.length, 1);
  }
  const s = new WireSession(process.pid);
  const ctx: Ctx = { a: 0n, b: 0n, managed: 0n, fd: input.fd };
  try {
    for (const i of order) {
      const stepDef = SCRIPT[i]!;
      const { bytes, truncated } = edit(frame(stepDef.op, stepDef.payload(ctx)), input.ops, i);
      const before = s.replies.length;
      s.send(bytes);
      if (truncated) break;
      await s.settle();
      if (s.ended) break;
      stepDef.keep?.(ctx, s.replies[before]);
    }
    await s.settle();
    await s.close();
  } catch (e) {
    return { kind: 'internal', detail: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  const bad = s.lines.find(looksInternal);
  if (bad) return { kind: 'internal', detail: bad };
  // every complete frame answered, none twice; a connection the server ended was one it had to
  if (s.replies.length > s.owed || (s.replies.length < s.owed && !s.oversized)) {
    return { kind: 'internal', detail: `${s.owed} complete frames sent, ${s.replies.length} replies` };
  }
  if (s.oversized && !s.lines.some((l) => /closing the connection/.test(l))) return { kind: 'internal', detail: 'an oversized frame ended the connection without a message' };
  return s.lines.length || s.replies.some((r) => r.status !== 0) ? { kind: 'rejected' } : { kind: 'accepted' };
}
