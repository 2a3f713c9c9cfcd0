/**
 * Shadow memory: per 4-byte word of a state space, the last write and the last two reads by
 * different threads, each as (thread, step, global pc and meta) in flat Int32Arrays, one per record,
 * so the checker's hot path is a handful of indexed loads and stores and never allocates.
 *
 * Word granularity with a byte mask per record: accesses to different bytes of one word (byte
 * arrays) do not conflict. The arrays cover the whole space but cost only what is touched: large
 * zero-filled ArrayBuffers are mapped lazily by the OS (an 8 MB device heap nobody mallocs from is
 * free). The second read record has its own array, written only where two threads read a word,
 * so data touched by one thread costs 24 bytes per word. Thread ids are stored plus one, so zero
 * means "none".
 */

/**
 * Int32 slots per word in each record array (`writes`, `reads`, `second`): [tid, step, pc·meta].
 * Three arrays rather than one of six slots a word: a typed array holds at most 2^32 elements, so
 * one of six slots stopped at 2^32 / 6 words (2.86 GB of device memory); three slots reach the
 * whole 4 GiB device.
 */
export const REC = 3;
export const REC2 = 3;
/** Field offsets within a record: thread id + 1, step, and global pc * 256 + meta. */
export const TID = 0;
export const STEP = 1;
export const PCM = 2;
export const PC_SHIFT = 8;
/** Global pcs must stay below this (the packed field is a positive int32). */
export const MAX_GPC = 1 << 23;

/** Meta (low 8 bits of PCM): bits 0-3 the bytes of the word accessed; then the access class. */
export const M_BYTES = 0xf;
/** Atomic or strong (.relaxed/.acquire/.release) access: does not race with another such access. */
export const M_ATOMIC = 0x10;
/** The atomic has .cta scope (not atomic with respect to other CTAs). */
export const M_CTA_SCOPE = 0x20;
/**
 * On the first read record: a second read record is present. Writes look at `second` only then,
 * so data read by one thread never touches (or faults in) the second-reader array.
 */
export const M_HAS_R2 = 0x40;
/**
 * A strong load or store (ld/st .volatile, .relaxed, .acquire, .release; "ld.volatile has the same
 * memory synchronization semantics as ld.relaxed.sys", PTX ISA), not a read-modify-write: strong
 * with respect to other warps and to atomics, so the `membar.gl` + volatile-flag idiom and a CAS
 * loop reading with ld.volatile are no race. Two of them by lanes of one warp are reported: with
 * independent thread scheduling nothing orders them but `__syncwarp` or a barrier (the unrolled
 * warp reduction without `__syncwarp` through a volatile pointer, or with ld/st.relaxed alike).
 */
export const M_LDST = 0x80;

/** Words per chunk: the unit of first-touch preparation and of cleaning for reuse. */
export const CHUNK_SHIFT = 12;
const CHUNK_WORDS = 1 << CHUNK_SHIFT;
/** Shadows at least this big (bytes of shadowed memory) are pooled and prepared chunk by chunk. */
const LARGE = 1 << 20;

/**
 * One released pair of large arrays, kept for the next checked run (a --schedules loop, the
 * benchmark, the debugger re-running): the OS has already mapped its pages, and faulting in tens
 * of megabytes of fresh shadow costs more than the checking itself.
 */
let pool: { writes: Int32Array; reads: Int32Array; second: Int32Array } | undefined;

export class Shadow {
  /** Last-write records, REC slots per word. */
  readonly writes: Int32Array;
  /** First-read records, REC slots per word (the meta of the first read carries M_HAS_R2). */
  readonly reads: Int32Array;
  /** Second-read records, REC2 slots per word. */
  readonly second: Int32Array;
  /**
   * Per chunk of words: 1 once prepared. The checker calls `touch` for an unprepared chunk of a
   * large (global) shadow, which writes the chunk's write and first-read records once: a fresh page is then
   * faulted in once for writing, instead of once for the first read (the zero page) and again
   * for the first write. Small (shared) shadows are born prepared.
   */
  readonly touched: Uint8Array;
  /**
   * Per chunk: 1 once a second-read record was written in it (the checker marks it). Most data is
   * read by one thread between writes, so most chunks never have one, and `release` cleans only
   * these of `second`.
   */
  readonly touched2: Uint8Array;
  private readonly large: boolean;
  /** The arrays came from the pool: zeroed and already mapped, so touching only records the chunk. */
  private readonly resident: boolean;

  constructor(bytes: number) {
    const words = Math.ceil(Math.max(4, bytes) / 4);
    const chunks = Math.ceil(words / CHUNK_WORDS);
    this.touched = new Uint8Array(chunks + 1);
    this.touched2 = new Uint8Array(chunks + 1);
    this.large = bytes >= LARGE;
    const p = this.large ? pool : undefined;
    this.resident = p !== undefined && p.writes.length >= words * REC && p.writes.length <= 4 * words * REC;
    if (p && this.resident) {
      pool = undefined;
      this.writes = p.writes;
      this.reads = p.reads;
      this.second = p.second;
      return;
    }
    if (!this.large) this.touched.fill(1); // small arrays come zeroed and resident from the heap
    // a small shadow (one CTA's shared memory) is sized to the word: a launch of thousands of
    // small CTAs makes thousands of them, and whole chunks would be mostly garbage to collect
    const cap = this.large ? chunks * CHUNK_WORDS : words;
    try {
      this.writes = new Int32Array(cap * REC);
      this.reads = new Int32Array(cap * REC);
      this.second = new Int32Array(cap * REC2);
    } catch {
      throw new Error(`its shadow of ${bytes} bytes of memory (${REC * 8 + REC2 * 4} bytes a word) is more than the host can map`);
    }
  }

  /** Prepare chunk `c` (see `touched`). */
  touch(c: number): void {
    this.touched[c] = 1;
    if (this.resident) return;
    this.writes.fill(0, c * CHUNK_WORDS * REC, (c + 1) * CHUNK_WORDS * REC);
    this.reads.fill(0, c * CHUNK_WORDS * REC, (c + 1) * CHUNK_WORDS * REC);
  }

  /** Forget everything about words [first, last] (memory reallocated by malloc). */
  clear(first: number, last: number): void {
    this.writes.fill(0, first * REC, (last + 1) * REC);
    this.reads.fill(0, first * REC, (last + 1) * REC);
    this.second.fill(0, first * REC2, (last + 1) * REC2);
  }

  /** The shadow is no longer used: clean what was touched and keep a large one for reuse. */
  release(): void {
    if (!this.large) return;
    for (let c = 0; c < this.touched.length; c++) {
      if (this.touched[c] === 0) continue;
      this.writes.fill(0, c * CHUNK_WORDS * REC, (c + 1) * CHUNK_WORDS * REC);
      this.reads.fill(0, c * CHUNK_WORDS * REC, (c + 1) * CHUNK_WORDS * REC);
      if (this.touched2[c] !== 0) this.second.fill(0, c * CHUNK_WORDS * REC2, (c + 1) * CHUNK_WORDS * REC2);
    }
    this.touched.fill(0);
    this.touched2.fill(0);
    if (!pool || pool.writes.length < this.writes.length) pool = { writes: this.writes, reads: this.reads, second: this.second };
  }
}
