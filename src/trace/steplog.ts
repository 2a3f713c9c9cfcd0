/**
 * The step log of a recording: per warp-step the global instruction index and the warp's SIMT
 * active mask before the guard, plus the segments (runs of steps of one warp).
 *
 * The hot loop writes runs, not steps (StepRecorder): consecutive steps of a turn at consecutive
 * instructions under one mask are one entry of 3 words (first step, its instruction, the mask),
 * so a block's execution or a straight line stepped through is logged once, and a step is found
 * again as its run's instruction plus its distance from the run's first step. Runs go into a raw
 * chunk of 2^15 steps (its storage reused for the next chunk). A finished chunk is packed (a few
 * bytes a run, so about one a step or less): first steps in 16 bits, instruction indices as offsets
 * from the chunk's smallest, in 16 bits when the chunk's code spans less than 64 Ki instructions
 * (it nearly always does), and masks as a byte index into the chunk's palette of distinct masks
 * (a warp has few). Past its memory budget (the trace's, checkpoints included) the log writes
 * packed chunks to an unlinked temporary file and reads them back on demand, so a recording
 * larger than memory stays usable.
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
/** Smallest storage of a chunk read back (reused for the next one read back when large enough). */
const READ_BYTES = 1 << 16;

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

/**
 * A finished recording's raw chunk and large segment arrays, for the next recording in this
 * process (a program session records launches one after another: new buffers each time
 * otherwise, answered by V8 with full collections for their external memory). At most one of
 * each is kept; their contents are never read before they are written.
 */
const freeRaw: Int32Array[] = [];
type Words = Uint32Array<ArrayBuffer>;
const freeSeg: [Words, Words][] = [];
/** Segment arrays this long and longer are kept (smaller ones cost little to make). */
const KEEP_SEGMENTS = 1 << 14;

function giveBack(raw: Int32Array | undefined, segStep: Words, segWarp: Words): void {
  if (raw !== undefined && raw.length === 3 * CHUNK_STEPS && freeRaw.length === 0) freeRaw.push(raw);
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

/** Words of a run in a raw chunk: its first step's offset in the chunk, global instruction index, mask. */
const RUN_WORDS = 3;

/** What a packed chunk holds: the arrays' lengths and forms. */
interface Shape {
  readonly steps: number;
  readonly runs: number;
  /** Smallest first instruction index of the chunk's runs; pcs hold the offsets from it. */
  readonly base: number;
  /** Offsets in 32 bits (the chunk's code spans 64 Ki instructions or more). */
  readonly wide: boolean;
  /** Masks as they are (more than 256 distinct in the chunk), else indices into a palette. */
  readonly rawMasks: boolean;
  readonly paletteLen: number;
}

/**
 * A finished chunk, packed: per run its first step, first instruction and mask, in one buffer.
 * A class with every field always set (an unused form's array empty), so that reads see one shape.
 */
class Packed implements Shape {
  readonly steps: number;
  readonly runs: number;
  readonly base: number;
  readonly wide: boolean;
  readonly rawMasks: boolean;
  readonly paletteLen: number;
  /** First step of each run, as an offset in the chunk (ascending, the first 0). */
  readonly starts: Uint16Array;
  /** First instructions, as offsets from `base`: in 16 bits, or (wide) in 32. */
  readonly pcs16: Uint16Array;
  readonly pcs32: Uint32Array;
  /** Masks as palette indices, or (rawMasks) the masks themselves. */
  readonly idx: Uint8Array;
  readonly palette: Int32Array;
  readonly masks: Int32Array;
  /** The bytes of all of the above (spilled as they are). */
  readonly buf: Uint8Array;

  /** The packed chunk of shape `sh` whose bytes lie at the start of `buffer`. */
  constructor(buffer: ArrayBuffer, sh: Shape) {
    const l = layout(sh);
    this.steps = sh.steps; this.runs = sh.runs; this.base = sh.base;
    this.wide = sh.wide; this.rawMasks = sh.rawMasks; this.paletteLen = sh.paletteLen;
    this.starts = new Uint16Array(buffer, l.starts, sh.runs);
    this.pcs16 = new Uint16Array(buffer, l.pcs, sh.wide ? 0 : sh.runs);
    this.pcs32 = new Uint32Array(buffer, sh.wide ? l.pcs : 0, sh.wide ? sh.runs : 0);
    this.idx = new Uint8Array(buffer, l.idx, sh.rawMasks ? 0 : sh.runs);
    this.palette = new Int32Array(buffer, l.masks, sh.rawMasks ? 0 : sh.paletteLen);
    this.masks = new Int32Array(buffer, l.masks, sh.rawMasks ? sh.runs : 0);
    this.buf = new Uint8Array(buffer, 0, l.end);
  }

  /** First instruction of run r. */
  pc(r: number): number {
    return this.base + (this.wide ? this.pcs32[r]! : this.pcs16[r]!);
  }

  /** Mask of run r. */
  mask(r: number): number {
    return this.rawMasks ? this.masks[r]! : this.palette[this.idx[r]!]!;
  }
}

/** Where a spilled chunk lies in the file, and its shape. */
interface Spilled extends Shape {
  readonly offset: number;
}

/** Byte offsets of a packed chunk's arrays in its buffer: 32-bit arrays first, then 16-bit, then bytes (each aligned). */
function layout(sh: Shape): { pcs: number; masks: number; starts: number; idx: number; end: number } {
  let o = 0;
  const pcs32 = o; if (sh.wide) o += 4 * sh.runs;
  const masks = o; o += 4 * (sh.rawMasks ? sh.runs : sh.paletteLen);
  const starts = o; o += 2 * sh.runs;
  const pcs16 = o; if (!sh.wide) o += 2 * sh.runs;
  const idx = o; if (!sh.rawMasks) o += sh.runs;
  return { pcs: sh.wide ? pcs32 : pcs16, masks, starts, idx, end: o };
}

function bytesOf(sh: Shape): number {
  return layout(sh).end;
}

function shapeOf(p: Shape): Shape {
  return { steps: p.steps, runs: p.runs, base: p.base, wide: p.wide, rawMasks: p.rawMasks, paletteLen: p.paletteLen };
}

/** Mask indices of the chunk being packed (one chunk at a time). */
const SCRATCH_IDX = new Uint8Array(CHUNK_STEPS);
/** Smallest and largest first instruction of the chunk being packed (scanRuns keeps them here; unset without runs). */
const SCAN_PCS = new Int32Array(2);

/*
 * pack runs once per chunk, a few dozen times in a recording: its loops are optimized while they
 * run (on-stack replacement), before the code after them has ever run, and such code then has no
 * type feedback in the optimized loop, which deoptimized at the loop's end, in every later call
 * (the cached optimized loop is entered again), leaving the rest of each chunk's packing to the
 * interpreter. So each loop is a function of its own that returns as the loop ends.
 */

/** Pack `n` runs of a raw chunk of `steps` steps (runs starting at or past `steps` were never issued: dropped). */
function pack(raw: Int32Array, n: number, steps: number): Packed {
  n = issuedRuns(raw, n, steps);
  const palette: number[] = [];
  // made here, not in scanRuns: code before its loop runs once before that loop is optimized
  const rawMasks = scanRuns(raw, n, palette, new Map());
  const lo = n === 0 ? 0 : SCAN_PCS[0]!, hi = n === 0 ? 0 : SCAN_PCS[1]!;
  const sh: Shape = { steps, runs: n, base: lo, wide: hi - lo >= 65536, rawMasks, paletteLen: rawMasks ? 0 : palette.length };
  const p = new Packed(new ArrayBuffer(bytesOf(sh)), sh);
  fillRuns(raw, n, lo, p.starts, sh.wide ? p.pcs32 : p.pcs16, rawMasks ? p.masks : undefined);
  if (!rawMasks) { p.idx.set(SCRATCH_IDX.subarray(0, n)); p.palette.set(palette); }
  return p;
}

/** The runs of `n` that start before `steps`. */
function issuedRuns(raw: Int32Array, n: number, steps: number): number {
  while (n > 0 && raw[RUN_WORDS * (n - 1)]! >= steps) n--;
  return n;
}

/**
 * The smallest and largest first instruction of `n` runs (into SCAN_PCS) and their masks' palette
 * (into `palette`, indices into SCRATCH_IDX, `slot` the palette's index of each mask); true when
 * the masks are too many for one (raw masks).
 */
function scanRuns(raw: Int32Array, n: number, palette: number[], slot: Map<number, number>): boolean {
  let lo = 0x7fffffff, hi = 0;
  let rawMasks = false;
  // the two masks seen last (a diverged warp alternates between two), before the map
  let m1 = 0, k1 = -1, m2 = 0, k2 = -1;
  for (let r = 0; r < n; r++) {
    const pc = raw[RUN_WORDS * r + 1]!, m = raw[RUN_WORDS * r + 2]!;
    lo = pc < lo ? pc : lo;
    hi = pc > hi ? pc : hi;
    SCAN_PCS[0] = lo; SCAN_PCS[1] = hi;
    if (rawMasks) continue;
    let k = k1 >= 0 && m === m1 ? k1 : k2 >= 0 && m === m2 ? k2 : slot.get(m);
    if (k === undefined) {
      if (palette.length === 256) { rawMasks = true; continue; }
      k = palette.length;
      slot.set(m, k);
      palette.push(m);
    }
    if (k !== k1) { m2 = m1; k2 = k1; m1 = m; k1 = k; }
    SCRATCH_IDX[r] = k;
  }
  return rawMasks;
}

/** Each run's first step, first instruction (less `lo`) and, when `masks` is given, its mask. */
function fillRuns(raw: Int32Array, n: number, lo: number, starts: Uint16Array, pcs: Uint16Array | Uint32Array, masks: Int32Array | undefined): void {
  for (let r = 0; r < n; r++) {
    starts[r] = raw[RUN_WORDS * r]!;
    pcs[r] = raw[RUN_WORDS * r + 1]! - lo;
    if (masks !== undefined) masks[r] = raw[RUN_WORDS * r + 2]!;
  }
}

/** The run of `starts` (ascending, n of them) that holds offset `off`: `hint` first (reads go in order), else by halves. */
function runIn(starts: Uint16Array, n: number, off: number, hint: number): number {
  if (hint < n && starts[hint]! <= off) {
    if (hint + 1 >= n || starts[hint + 1]! > off) return hint;
    if (hint + 2 >= n || starts[hint + 2]! > off) return hint + 1;
  }
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= off) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** As runIn, for a raw chunk's runs (RUN_WORDS words each). */
function rawRunIn(raw: Int32Array, n: number, off: number, hint: number): number {
  if (hint < n && raw[RUN_WORDS * hint]! <= off && (hint + 1 >= n || raw[RUN_WORDS * (hint + 1)]! > off)) return hint;
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (raw[RUN_WORDS * mid]! <= off) lo = mid; else hi = mid - 1;
  }
  return lo;
}

export class StepLog implements StepRecorder {
  /** Raw chunks still being written (runs, RUN_WORDS words each; a packed or spilled chunk's slot is undefined). */
  readonly chunks: (Int32Array | undefined)[] = [];
  private readonly packed: (Packed | undefined)[] = [];
  private readonly spilledAt: (Spilled | undefined)[] = [];
  segStep = new Uint32Array(1024);
  segWarp = new Uint32Array(1024);
  nseg = 0;
  /** StepRecorder: runs in the chunk the hot loop writes (`cur`), its first step, and the step past it. */
  nrun = 0;
  runBase = 0;
  runEnd = 0;
  /** The chunk runsFor last handed out (-1: none); `counts` holds the other raw chunks' runs. */
  private cur = -1;
  private readonly counts: number[] = [];
  /** The run of the last lookup (chunk, run index): reads mostly go step after step. */
  private hintChunk = -1;
  private hintRun = 0;
  /** The spill file (unlinked at once: it lives as long as this process holds it), or -1. */
  private fd = -1;
  private fileEnd = 0;
  private readonly cache = new Map<number, Packed>();
  /** Bytes of the chunks in `cache`. */
  private cacheBytes = 0;
  /** Bytes of the rest of the trace, as packBefore was last told. */
  private beside = 0;
  /** A raw chunk's storage, kept for the next chunk once its contents are packed. */
  private spare: Int32Array | undefined;
  /** Chunks before this one are packed (or spilled): packBefore starts here. */
  private firstRaw = 0;
  /** Chunks before this one are spilled: spilling starts here. */
  private firstHeld = 0;
  /** Bytes of the packed chunks held in memory. */
  private heldPacked = 0;
  /** Storage of a chunk dropped from the read-back cache, for the next chunk read back. */
  private freeRead: ArrayBuffer | undefined;

  /**
   * `budget`: bytes of the trace kept in memory, this log's and what packBefore is told the rest
   * of the trace holds beside it; past it, finished chunks are spilled.
   */
  constructor(private readonly budget = defaultLogBudget()) {}

  runsFor(step: number, w: Warp): Int32Array {
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
    if (c !== this.cur) this.enter(c);
    return this.chunks[c]!;
  }

  /** The hot loop moves on to chunk c. */
  private enter(c: number): void {
    if (this.cur >= 0) this.counts[this.cur] = this.nrun;
    while (this.chunks.length <= c) this.addChunk();
    this.cur = c;
    this.nrun = this.counts[c] ?? 0;
    this.runBase = c << CHUNK_SHIFT;
    this.runEnd = this.runBase + CHUNK_STEPS;
  }

  /** Runs written in raw chunk c. */
  private countOf(c: number): number {
    return c === this.cur ? this.nrun : this.counts[c] ?? 0;
  }

  /**
   * Room for the steps [from, end) before the machine runs them (chunks, segment slots), so that
   * runsFor, inlined in the hot loop, never takes its growing paths there: a path first taken
   * in optimized code deoptimizes the hot loop, which then runs slowly until it is recompiled.
   */
  reserve(from: number, end: number): void {
    if (end <= from) return;
    while (this.chunks.length <= (end - 1) >>> CHUNK_SHIFT) this.addChunk();
    // the chunk the hot loop writes next, entered here: runsFor then enters one only when an
    // interval spans chunks (a branch first taken in optimized code deoptimizes it)
    if (from >>> CHUNK_SHIFT !== this.cur) this.enter(from >>> CHUNK_SHIFT);
    const need = this.nseg + (end - from);
    if (need <= this.segStep.length) return;
    let n = this.segStep.length;
    while (n < need) n *= 2;
    const [a, b] = takeSegments(n);
    a.set(this.segStep.subarray(0, this.nseg)); this.segStep = a;
    b.set(this.segWarp.subarray(0, this.nseg)); this.segWarp = b;
  }

  private addChunk(): void {
    // a chunk holds at most one run per step
    this.chunks.push(this.spare ?? freeRaw.pop() ?? new Int32Array(RUN_WORDS * CHUNK_STEPS));
    this.spare = undefined;
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
      const p = pack(raw, this.countOf(c), c === this.chunks.length - 1 ? lastSteps : CHUNK_STEPS);
      this.packed[c] = p;
      this.heldPacked += p.buf.byteLength;
      this.chunks[c] = undefined;
      if (c === this.cur) { this.cur = -1; this.nrun = 0; }
      this.spare ??= raw;
    }
    this.firstRaw = Math.max(this.firstRaw, Math.min(upTo, this.chunks.length));
    this.beside = beside;
    if (this.budget === Infinity) return;
    let held = this.held() + this.cacheBytes;
    for (let c = this.firstHeld; c < this.packed.length && held > this.budget; c++) {
      const p = this.packed[c];
      if (!p) continue;
      this.spill(c, p);
      held -= p.buf.byteLength;
      this.heldPacked -= p.buf.byteLength;
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
    const bytes = p.buf;
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, this.fileEnd + done);
    this.fileEnd += bytes.length;
    this.spilledAt[c] = { ...shapeOf(p), offset };
    this.packed[c] = undefined;
    if (this.hintChunk === c) this.hintChunk = -1;
  }

  private readBack(c: number, s: Spilled): Packed {
    const need = bytesOf(s);
    const into = this.freeRead !== undefined && this.freeRead.byteLength >= need ? this.freeRead : new ArrayBuffer(Math.max(need, READ_BYTES));
    this.freeRead = undefined;
    const bytes = new Uint8Array(into, 0, need);
    for (let done = 0; done < bytes.length;) {
      const n = readSync(this.fd, bytes, done, bytes.length - done, s.offset + done);
      if (n <= 0) throw new TraceError(`the spilled step log ended early (chunk ${c})`);
      done += n;
    }
    return new Packed(into, s);
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
    const bytes = got.buf.byteLength;
    const room = this.budget - this.held();
    while (this.cache.size >= SPILL_CACHE || (this.cache.size >= SPILL_CACHE_MIN && this.cacheBytes + bytes > room)) {
      const [old, dropped] = this.cache.entries().next().value!;
      this.cache.delete(old);
      this.cacheBytes -= dropped.buf.byteLength;
      if (this.hintChunk === old) this.hintChunk = -1;
      this.freeRead = dropped.buf.buffer as ArrayBuffer;
    }
    this.cache.set(c, got);
    this.cacheBytes += bytes;
    return got;
  }

  /** Chunk c as two words per step (global instruction index, mask), runs unpacked: for trace files. Only once recording has moved past it (seal). */
  chunk(c: number): Uint32Array {
    if (this.chunks[c]) throw new TraceError(`step log chunk ${c} is still being written`);
    const p = this.packedChunk(c);
    const out = new Uint32Array(2 * p.steps);
    for (let r = 0; r < p.runs; r++) {
      const from = p.starts[r]!, to = r + 1 < p.runs ? p.starts[r + 1]! : p.steps;
      const pc = p.pc(r);
      const m = p.mask(r);
      for (let i = from; i < to; i++) { out[2 * i] = pc + (i - from); out[2 * i + 1] = m; }
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
    const c = s >>> CHUNK_SHIFT, off = s & CHUNK_MASK;
    const raw = this.chunks[c];
    if (raw) {
      const r = this.hintRun = rawRunIn(raw, this.countOf(c), off, this.hintChunk === c ? this.hintRun : 0);
      this.hintChunk = c;
      return raw[RUN_WORDS * r + 1]! + (off - raw[RUN_WORDS * r]!);
    }
    const p = this.packedChunk(c);
    const r = this.runOf(c, p, off);
    return p.pc(r) + (off - p.starts[r]!);
  }

  mask(s: number): number {
    const c = s >>> CHUNK_SHIFT, off = s & CHUNK_MASK;
    const raw = this.chunks[c];
    if (raw) {
      const r = this.hintRun = rawRunIn(raw, this.countOf(c), off, this.hintChunk === c ? this.hintRun : 0);
      this.hintChunk = c;
      return raw[RUN_WORDS * r + 2]! | 0;
    }
    const p = this.packedChunk(c);
    const r = this.runOf(c, p, off);
    return p.mask(r);
  }

  private runOf(c: number, p: Packed, off: number): number {
    const r = runIn(p.starts, p.runs, off, this.hintChunk === c ? this.hintRun : 0);
    this.hintChunk = c;
    this.hintRun = r;
    return r;
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
    this.cur = -1;
  }

  /** Bytes of the log (spilled chunks included). */
  bytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (let c = 0; c < this.chunks.length; c++) {
      const raw = this.chunks[c];
      const p = this.packed[c];
      const s = this.spilledAt[c];
      n += raw ? raw.byteLength : p ? p.buf.byteLength : s ? bytesOf(s) : 0;
    }
    return n;
  }

  /** Bytes of the log in the spill file. */
  spilledBytes(): number {
    let n = 0;
    for (const s of this.spilledAt) if (s) n += bytesOf(s);
    return n;
  }

  /** Bytes of the log held in memory. */
  residentBytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (const raw of this.chunks) if (raw) n += raw.byteLength;
    for (const p of this.packed) if (p) n += p.buf.byteLength;
    for (const p of this.cache.values()) n += p.buf.byteLength;
    return n;
  }
}
