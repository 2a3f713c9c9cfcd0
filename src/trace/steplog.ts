/**
 * The step log of a recording: per warp-step the global instruction index and the warp's SIMT
 * active mask before the guard, plus the segments (runs of steps of one warp).
 *
 * The hot loop writes two u32 words per step into a raw chunk of 2^15 steps (256 KiB: small enough
 * to stay in cache while it is written and then packed, and its storage is reused for the next
 * chunk; a chunk of 2^19 steps streamed through memory twice). A finished chunk is
 * packed (about 3 bytes a step instead of 8): instruction indices as offsets from the chunk's
 * smallest, in 16 bits when the chunk's code spans less than 64 Ki instructions (it nearly always
 * does), and masks as a byte index into the chunk's palette of distinct masks (a warp has few).
 * Past its memory budget (the trace's, checkpoints included) the log writes packed chunks to an
 * unlinked temporary file and reads them back on demand, so a recording larger than memory stays
 * usable.
 */
import { mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { StepRecorder } from '../exec/machine.js';
import type { Warp } from '../exec/state.js';

export const CHUNK_SHIFT = 15;
export const CHUNK_STEPS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_STEPS - 1;
/**
 * Packed chunks read back from the spill file and kept (the engine reads the log in runs): at
 * most 4 Mi steps, and past the budget 8 (256 Ki steps), so that reading a log does not take it
 * far over its budget.
 */
const SPILL_CACHE = 128;
const SPILL_CACHE_MIN = 8;

/**
 * Re-execution did not reproduce the recording, or the log cannot be read back (a spill file
 * damaged under us): reported by the debugger as a message, not a crash. Re-exported by trace.ts.
 */
export class TraceError extends Error {}

/**
 * A warp's identity in the step log and everywhere above it: CTA id * 32 + warp index in the
 * CTA (a CTA has at most 32 warps). The one home of the encoding: build and take apart keys
 * only with these.
 */
declare const WARP_KEY: unique symbol;
/** A warp key (branded: a plain number, a CTA id or a warp index is not one). */
export type WarpKey = number & { readonly [WARP_KEY]: true };

export function warpKey(w: Warp): WarpKey {
  return keyOf(w.cta.id, w.tidBase >>> 5);
}

export function keyOf(cta: number, warpInCta: number): WarpKey { return (cta * 32 + warpInCta) as WarpKey; }
export function ctaOfKey(key: WarpKey): number { return key >>> 5; }
export function warpOfKey(key: WarpKey): number { return key & 31; }
/** Linear thread index in its CTA of lane `lane` of warp `key`. */
export function tidOfKey(key: WarpKey, lane: number): number { return warpOfKey(key) * 32 + lane; }

/**
 * The default memory budget of a recording (its step log and checkpoints): past it, packed
 * chunks of the step log go to a temporary file and are read back on demand.
 */
export function defaultLogBudget(): number {
  // asked once: a program session records a launch on each first visit, and the call is a syscall
  return (logBudget0 ??= Math.min(2 ** 31, Math.floor(totalmem() / 4)));
}
let logBudget0: number | undefined;

/** A finished chunk, packed. */
interface Packed {
  readonly steps: number;
  /** Smallest instruction index of the chunk; pcs hold the offsets from it. */
  readonly base: number;
  readonly pcs: Uint16Array | Uint32Array;
  /** Masks as palette indices, or (more than 256 distinct masks) the masks themselves. */
  readonly idx: Uint8Array | undefined;
  readonly palette: Int32Array;
  readonly masks: Int32Array | undefined;
}

/** Where a spilled chunk lies in the file, and what its arrays are. */
interface Spilled {
  readonly offset: number;
  readonly steps: number;
  readonly base: number;
  readonly wide: boolean;
  readonly paletteLen: number;
  readonly rawMasks: boolean;
}

function packedBytes(p: Packed): number {
  return p.pcs.byteLength + (p.idx?.byteLength ?? 0) + p.palette.byteLength + (p.masks?.byteLength ?? 0);
}

function spilledBytes(s: Spilled): number {
  return s.steps * (s.wide ? 4 : 2) + (s.rawMasks ? s.steps * 4 : s.steps + s.paletteLen * 4);
}

/**
 * Bytes of a packed chunk's storage in the usual case (16-bit pc offsets, then mask indices): one
 * buffer, not one per array, and reused (a spilled chunk's storage packs the next chunk), so that
 * a long recording neither mallocs nor leaves garbage for every chunk (freed ArrayBuffers are
 * returned only by a full collection, which a recording that spills reaches late).
 */
const PACK_BYTES = 3 * CHUNK_STEPS;
/** Storage of a chunk read back: the usual packed chunk and its palette (a larger one gets its own). */
const READ_BYTES = PACK_BYTES + 256 * 4;

function pack(raw: Uint32Array, steps: number, buf: ArrayBuffer): Packed {
  // read as int32: masks with the top lane set are not small integers as uint32 (slow to read);
  // instruction indices are far below 2^31, the same either way
  const r32 = new Int32Array(raw.buffer, raw.byteOffset, 2 * steps);
  // one pass for the pc range and the mask palette, by runs of one mask (a warp's turn mostly
  // keeps its mask), one for the pc offsets
  let lo = 0x7fffffff, hi = 0;
  const slot = new Map<number, number>();
  const palette: number[] = [];
  // the indices follow room for the buffer's capacity of 16-bit offsets (packBuffer)
  const idx = new Uint8Array(buf, 2 * (buf.byteLength / 3), steps);
  let i = 0, rawMasks = false;
  // the two masks seen last (a diverged warp alternates between two), before the map
  let m1 = 0, k1 = -1, m2 = 0, k2 = -1;
  while (i < steps) {
    const m = r32[2 * i + 1]!;
    let k = k1 >= 0 && m === m1 ? k1 : k2 >= 0 && m === m2 ? k2 : slot.get(m);
    if (k === undefined) {
      if (palette.length === 256) { rawMasks = true; break; }
      k = palette.length;
      slot.set(m, k);
      palette.push(m);
    }
    if (k !== k1) { m2 = m1; k2 = k1; m1 = m; k1 = k; }
    const start = i;
    for (; i < steps && r32[2 * i + 1] === m; i++) {
      const pc = r32[2 * i]!;
      lo = pc < lo ? pc : lo;
      hi = pc > hi ? pc : hi;
    }
    idx.fill(k, start, i); // a reused buffer holds an earlier chunk's indices
  }
  for (; i < steps; i++) {
    const pc = r32[2 * i]!;
    lo = pc < lo ? pc : lo;
    hi = pc > hi ? pc : hi;
  }
  if (steps === 0) lo = 0;
  const pcs = hi - lo < 65536 ? offsets16(new Uint16Array(buf, 0, steps), r32, lo) : offsets32(r32, steps, lo);
  if (rawMasks) {
    const masks = new Int32Array(steps);
    for (let j = 0; j < steps; j++) masks[j] = r32[2 * j + 1]!;
    return { steps, base: lo, pcs, idx: undefined, palette: new Int32Array(0), masks };
  }
  return { steps, base: lo, pcs, idx, palette: Int32Array.from(palette), masks: undefined };
}

// one loop per array type: a loop storing to either kind of array runs slower than both
function offsets16(pcs: Uint16Array, r32: Int32Array, lo: number): Uint16Array {
  for (let i = 0; i < pcs.length; i++) pcs[i] = r32[2 * i]! - lo;
  return pcs;
}

function offsets32(r32: Int32Array, steps: number, lo: number): Uint32Array {
  const pcs = new Uint32Array(steps);
  for (let i = 0; i < steps; i++) pcs[i] = r32[2 * i]! - lo;
  return pcs;
}

/**
 * Storage to pack a chunk of `steps` steps into: a spilled chunk's (`free`) or a new buffer of
 * PACK_BYTES for a whole chunk, else one just big enough, three bytes a step (the last chunk of a
 * recording; a program session records a launch of a few hundred steps on each first visit, and
 * a whole chunk's storage for it was 96 KiB held per launch).
 */
function packBuffer(steps: number, free: ArrayBuffer[]): ArrayBuffer {
  if (steps >= CHUNK_STEPS / 2) return free.pop() ?? new ArrayBuffer(PACK_BYTES);
  return new ArrayBuffer(3 * Math.max(2, steps + (steps & 1)));
}

/**
 * A finished recording's raw chunk and large segment arrays, for the next recording in this
 * process (a program session records launches one after another: 768 KiB of new buffers each
 * time otherwise, answered by V8 with full collections for their external memory). At most one
 * of each is kept; their contents are never read before they are written.
 */
const freeRaw: Uint32Array[] = [];
type Words = Uint32Array<ArrayBuffer>;
const freeSeg: [Words, Words][] = [];
/** Segment arrays this long and longer are kept (smaller ones cost little to make). */
const KEEP_SEGMENTS = 1 << 14;

function giveBack(raw: Uint32Array | undefined, segStep: Words, segWarp: Words): void {
  if (raw !== undefined && raw.length === 2 * CHUNK_STEPS && freeRaw.length === 0) freeRaw.push(raw);
  if (segStep.length >= KEEP_SEGMENTS && segStep.length <= 4 * CHUNK_STEPS && (freeSeg.length === 0 || freeSeg[0]![0].length < segStep.length)) {
    freeSeg[0] = [segStep, segWarp];
  }
}

/** Segment arrays of at least `n` entries: the kept ones when they are long enough, else new ones. */
function takeSegments(n: number): [Words, Words] {
  const kept = freeSeg[0];
  if (kept !== undefined && kept[0].length >= n) {
    freeSeg.length = 0;
    return kept;
  }
  return [new Uint32Array(n), new Uint32Array(n)];
}

export class StepLog implements StepRecorder {
  /** Raw chunks still being written (a packed or spilled chunk's slot is undefined). */
  readonly chunks: (Uint32Array | undefined)[] = [];
  private readonly packed: (Packed | undefined)[] = [];
  private readonly spilledAt: (Spilled | undefined)[] = [];
  segStep = new Uint32Array(1024);
  segWarp = new Uint32Array(1024);
  nseg = 0;
  /** The spill file (unlinked at once: it lives as long as this process holds it), or -1. */
  private fd = -1;
  private fileEnd = 0;
  private readonly cache = new Map<number, Packed>();
  /** Bytes of the chunks in `cache`. */
  private cacheBytes = 0;
  /** Bytes of the rest of the trace, as packBefore was last told. */
  private beside = 0;
  /** A raw chunk's storage, kept for the next chunk once its contents are packed. */
  private spare: Uint32Array | undefined;
  /** Chunks before this one are packed (or spilled): packBefore starts here. */
  private firstRaw = 0;
  /** Chunks before this one are spilled: spilling starts here. */
  private firstHeld = 0;
  /** Bytes of the packed chunks held in memory. */
  private heldPacked = 0;
  /** Storage of spilled chunks (PACK_BYTES each), for the next chunks packed. */
  private readonly freePack: ArrayBuffer[] = [];
  /** Storage of a chunk dropped from the read-back cache, for the next chunk read back. */
  private freeRead: ArrayBuffer | undefined;

  /**
   * `budget`: bytes of the trace kept in memory, this log's and what packBefore is told the rest
   * of the trace holds beside it; past it, finished chunks are spilled.
   */
  constructor(private readonly budget = defaultLogBudget()) {}

  chunkFor(step: number, w: Warp): Uint32Array {
    const key = warpKey(w);
    if (this.nseg === 0 || this.segWarp[this.nseg - 1] !== key) {
      if (this.nseg === this.segStep.length) {
        const a = new Uint32Array(this.nseg * 2); a.set(this.segStep); this.segStep = a;
        const b = new Uint32Array(this.nseg * 2); b.set(this.segWarp); this.segWarp = b;
      }
      this.segStep[this.nseg] = step;
      this.segWarp[this.nseg] = key;
      this.nseg++;
    }
    const c = step >>> CHUNK_SHIFT;
    while (this.chunks.length <= c) this.addChunk();
    return this.chunks[c]!;
  }

  /**
   * Room for the steps [from, end) before the machine runs them (chunks, segment slots), so that
   * chunkFor, inlined in the hot loop, never takes its growing paths there: a path first taken
   * in optimized code deoptimizes the hot loop, which then runs slowly until it is recompiled.
   */
  reserve(from: number, end: number): void {
    if (end <= from) return;
    while (this.chunks.length <= (end - 1) >>> CHUNK_SHIFT) this.addChunk();
    const need = this.nseg + (end - from);
    if (need <= this.segStep.length) return;
    let n = this.segStep.length;
    while (n < need) n *= 2;
    const [a, b] = takeSegments(n);
    a.set(this.segStep.subarray(0, this.nseg)); this.segStep = a;
    b.set(this.segWarp.subarray(0, this.nseg)); this.segWarp = b;
  }

  private addChunk(): void {
    this.chunks.push(this.spare ?? freeRaw.pop() ?? new Uint32Array(2 * CHUNK_STEPS));
    this.spare = undefined;
  }

  offsetOf(step: number): number {
    return (step & CHUNK_MASK) * 2;
  }

  /**
   * Pack the raw chunks before chunk `upTo` (finished: recording is past them), then spill packed
   * chunks while the log and `beside` (bytes of the rest of the trace, its checkpoints) are over
   * the budget. Called between intervals, never in the hot loop.
   */
  packBefore(upTo: number, lastSteps = CHUNK_STEPS, beside = 0): void {
    for (let c = this.firstRaw; c < Math.min(upTo, this.chunks.length); c++) {
      const raw = this.chunks[c];
      if (!raw) continue;
      const steps = c === this.chunks.length - 1 ? lastSteps : CHUNK_STEPS;
      const p = pack(raw, steps, packBuffer(steps, this.freePack));
      this.packed[c] = p;
      this.heldPacked += packedBytes(p);
      this.chunks[c] = undefined;
      this.spare ??= raw.length === 2 * CHUNK_STEPS ? raw : undefined;
    }
    this.firstRaw = Math.max(this.firstRaw, Math.min(upTo, this.chunks.length));
    this.beside = beside;
    if (this.budget === Infinity) return;
    let held = this.held() + this.cacheBytes;
    for (let c = this.firstHeld; c < this.packed.length && held > this.budget; c++) {
      const p = this.packed[c];
      if (!p) continue;
      this.spill(c, p);
      held -= packedBytes(p);
      this.heldPacked -= packedBytes(p);
      this.firstHeld = c + 1;
    }
  }

  /** What residentBytes counts but the read-back cache, and the rest of the trace, without visiting every chunk (a long recording has thousands). */
  private held(): number {
    let n = this.beside + this.heldPacked + this.segStep.byteLength + this.segWarp.byteLength;
    for (let c = this.firstRaw; c < this.chunks.length; c++) n += this.chunks[c]?.byteLength ?? 0;
    return n;
  }

  private spill(c: number, p: Packed): void {
    if (this.fd < 0) {
      const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-log-'));
      this.fd = openSync(join(dir, 'steps'), 'w+');
      rmSync(dir, { recursive: true, force: true });
    }
    const offset = this.fileEnd;
    for (const a of [p.pcs, p.idx ?? p.masks!, p.palette]) {
      const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, this.fileEnd + done);
      this.fileEnd += bytes.length;
    }
    this.spilledAt[c] = { offset, steps: p.steps, base: p.base, wide: p.pcs instanceof Uint32Array, paletteLen: p.palette.length, rawMasks: p.masks !== undefined };
    this.packed[c] = undefined;
    // its storage packs a later chunk (the mask indices' buffer is the one pack was given)
    if (p.idx && p.idx.buffer.byteLength === PACK_BYTES && this.freePack.length < 4) this.freePack.push(p.idx.buffer as ArrayBuffer);
  }

  private readBack(c: number, s: Spilled): Packed {
    const need = spilledBytes(s);
    const into = this.freeRead !== undefined && this.freeRead.byteLength >= need ? this.freeRead : new ArrayBuffer(Math.max(need, READ_BYTES));
    this.freeRead = undefined;
    const bytes = new Uint8Array(into, 0, need);
    for (let done = 0; done < bytes.length;) {
      const n = readSync(this.fd, bytes, done, bytes.length - done, s.offset + done);
      if (n <= 0) throw new TraceError(`the spilled step log ended early (chunk ${c})`);
      done += n;
    }
    const pcLen = s.steps * (s.wide ? 4 : 2);
    const pcs = s.wide ? new Uint32Array(bytes.buffer, 0, s.steps) : new Uint16Array(bytes.buffer, 0, s.steps);
    if (s.rawMasks) {
      // after 16-bit offsets of an odd number of steps the masks are not 4-aligned: copied then
      const masks = pcLen % 4 === 0 ? new Int32Array(bytes.buffer, pcLen, s.steps) : new Int32Array(bytes.slice(pcLen, pcLen + 4 * s.steps).buffer);
      return { steps: s.steps, base: s.base, pcs, idx: undefined, palette: new Int32Array(0), masks };
    }
    const idx = bytes.subarray(pcLen, pcLen + s.steps);
    // the palette follows at an offset that need not be 4-aligned: copy it
    const palette = new Int32Array(bytes.slice(pcLen + s.steps, pcLen + s.steps + s.paletteLen * 4).buffer);
    return { steps: s.steps, base: s.base, pcs, idx, palette, masks: undefined };
  }

  private packedChunk(c: number): Packed {
    const p = this.packed[c];
    if (p) return p;
    let got = this.cache.get(c);
    if (got) {
      this.cache.delete(c);
      this.cache.set(c, got);
      return got;
    }
    const s = this.spilledAt[c];
    if (!s) throw new TraceError(`step log chunk ${c} is missing`);
    got = this.readBack(c, s);
    const bytes = packedBytes(got);
    const room = this.budget - this.held();
    while (this.cache.size >= SPILL_CACHE || (this.cache.size >= SPILL_CACHE_MIN && this.cacheBytes + bytes > room)) {
      const [old, dropped] = this.cache.entries().next().value!;
      this.cache.delete(old);
      this.cacheBytes -= packedBytes(dropped);
      this.freeRead = dropped.pcs.buffer as ArrayBuffer;
    }
    this.cache.set(c, got);
    this.cacheBytes += bytes;
    return got;
  }

  /** Chunk c as the hot loop wrote it (two words per step), unpacked if need be: for trace files. */
  chunk(c: number): Uint32Array {
    const raw = this.chunks[c];
    if (raw) return raw;
    const p = this.packedChunk(c);
    const out = new Uint32Array(2 * p.steps);
    for (let i = 0; i < p.steps; i++) {
      out[2 * i] = p.base + p.pcs[i]!;
      out[2 * i + 1] = p.masks ? p.masks[i]! : p.palette[p.idx![i]!]!;
    }
    return out;
  }

  /** Chunks written to the spill file so far. */
  get spilled(): number {
    let n = 0;
    for (const s of this.spilledAt) if (s) n++;
    return n;
  }

  /** Global instruction index of step s. */
  loc(s: number): number {
    const c = s >>> CHUNK_SHIFT;
    const raw = this.chunks[c];
    if (raw) return raw[(s & CHUNK_MASK) * 2]!;
    const p = this.packedChunk(c);
    return p.base + p.pcs[s & CHUNK_MASK]!;
  }

  mask(s: number): number {
    const c = s >>> CHUNK_SHIFT;
    const raw = this.chunks[c];
    if (raw) return raw[(s & CHUNK_MASK) * 2 + 1]! | 0;
    const p = this.packedChunk(c);
    const i = s & CHUNK_MASK;
    return p.masks ? p.masks[i]! : p.palette[p.idx![i]!]!;
  }

  /** Index of the segment containing step s. */
  segmentOf(s: number): number {
    let lo = 0, hi = this.nseg - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segStep[mid]! <= s) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  /** The warp that ran segment `seg` (segWarp holds keys made by keyOf: the one place they are read back as WarpKey). */
  warpOfSegment(seg: number): WarpKey {
    return this.segWarp[seg]! as WarpKey;
  }

  warpAt(s: number): WarpKey {
    return this.warpOfSegment(this.segmentOf(s));
  }

  /** The recording ended after `total` logged steps: pack every chunk (`beside`: as packBefore). */
  seal(total: number, beside = 0): void {
    // chunks made ahead of the last step hold nothing
    const n = Math.ceil(total / CHUNK_STEPS);
    if (this.chunks.length > n) this.chunks.length = n;
    const [segStep, segWarp] = [this.segStep, this.segWarp];
    this.segStep = segStep.slice(0, this.nseg);
    this.segWarp = segWarp.slice(0, this.nseg);
    this.packBefore(n, total - (n - 1) * CHUNK_STEPS, beside);
    giveBack(this.spare, segStep, segWarp);
    this.spare = undefined;
  }

  /** Bytes of the log (spilled chunks included). */
  bytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (let c = 0; c < this.chunks.length; c++) {
      const raw = this.chunks[c];
      const p = this.packed[c];
      const s = this.spilledAt[c];
      n += raw ? raw.byteLength : p ? packedBytes(p) : s ? spilledBytes(s) : 0;
    }
    return n;
  }

  /** Bytes of the log in the spill file. */
  spilledBytes(): number {
    let n = 0;
    for (const s of this.spilledAt) if (s) n += spilledBytes(s);
    return n;
  }

  /** Bytes of the log held in memory. */
  residentBytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (const raw of this.chunks) if (raw) n += raw.byteLength;
    for (const p of this.packed) if (p) n += packedBytes(p);
    for (const p of this.cache.values()) n += packedBytes(p);
    return n;
  }
}
