/**
 * `ptxdbg sanitize --tool initcheck`: reads of device memory never written. A shadow byte per
 * byte of global memory lives as long as the program's device (cudaMalloc'd memory starts
 * uninitialized; copies, memsets and kernel writes initialize it; module variables are
 * initialized, as C static storage is); shared memory starts uninitialized in every block and
 * local memory in every thread. A finding per read, as compute-sanitizer reports each thread's
 * (the first FINDINGS_MAX kept, all counted).
 */
import type { Machine } from '../exec/machine.js';
import { coordsOf } from '../exec/launch.js';
import { type Bank, BANK_BYTES, type DataSpace, Space } from '../exec/memory.js';
import { Access, type Probe } from '../exec/probe.js';
import type { Warp } from '../exec/state.js';
import { ptxText } from '../exec/machine.js';

export interface InitFinding {
  space: DataSpace;
  size: number;
  function: string;
  pc: number;
  ptx: string;
  file: string | undefined;
  line: number;
  block: [number, number, number];
  thread: [number, number, number];
  /** Global: the device offset read; shared/local: the offset in that space. */
  address: number;
}

/** Findings kept; more are only counted. */
const FINDINGS_MAX = 10_000;

export class InitCheck implements Probe {
  /** 1 for each byte of the device's global memory that has been written. */
  private global = new Uint8Array(0);
  /** Shared and local banks' shadows; a local one laid out at its warp's lane stride. */
  private readonly perBank = new WeakMap<Bank, { shadow: Uint8Array; stride: number }>();
  private machine: Machine | undefined;
  readonly findings: InitFinding[] = [];
  /** Reads found, kept or not. */
  total = 0;

  /** Shadow bytes up to n; returns how many there were before (the new ones are zero). */
  private ensure(n: number): number {
    const had = this.global.length;
    if (n <= had) return had;
    // at most bank 0's 4 GiB (past it no shadow is kept): a Uint8Array cannot be longer
    const g = new Uint8Array(Math.min(2 ** 32, Math.max(n, had * 2)));
    g.set(this.global);
    this.global = g;
    return had;
  }

  /** Bytes [off, off+n) of global memory were written (by the host, or are static storage). */
  initialized(off: number, n: number): void {
    // past bank 0, the shadow is not kept: a kernel's access there is refused under initcheck (Warp.translateFar)
    if (off >= BANK_BYTES) return;
    this.ensure(off + n);
    this.global.fill(1, off, off + n);
  }

  /** Bytes [off, off+n) became a new allocation: never written. */
  uninitialized(off: number, n: number): void {
    // new shadow bytes are zero already: not writing them keeps a large untouched allocation
    // from costing host memory
    if (off >= BANK_BYTES) return;
    const had = this.ensure(off + n);
    this.global.fill(0, off, Math.min(off + n, had));
  }

  /** Watch one launch (its machine); module variables count as initialized. */
  attach(m: Machine): void {
    this.machine = m;
    for (const [, a] of m.globalAddr) if (a.hi !== 0) this.initialized(a.lo, Math.max(1, this.sizeAt(m, a.lo)));
    m.mem.probe = this;
  }

  private sizeAt(m: Machine, off: number): number {
    const id = m.arena.check(off, 1);
    return id < 0 ? 0 : m.arena.allocs[id]!.size;
  }

  detach(): void {
    if (this.machine && this.machine.mem.probe === this) this.machine.mem.probe = undefined;
    this.machine = undefined;
  }

  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, address: number): void {
    let sh: Uint8Array;
    if (space === Space.Global) {
      this.ensure(idx + size);
      sh = this.global;
    } else if (space === Space.Shared) {
      sh = this.shadowOf(bank, 0);
    } else if (space === Space.Local || (space === Space.Param && bank === w.local)) {
      // a call's parameters in the caller's frame (st.param [param0]) are local stack bytes: the
      // call reads them from there as local memory (calls.ts copyValue), so their writes count
      sh = this.shadowOf(bank, w.localStride);
    } else return;
    if (acc !== Access.Write) {
      for (let k = idx; k < idx + size; k++) {
        if (sh[k] === 0) { this.report(w, space, size, lane, space === Space.Global ? idx : address); break; }
      }
    }
    if (acc !== Access.Read) sh.fill(1, idx, idx + size);
  }

  /**
   * The shadow of a shared or local bank. A warp's local bank is re-strided when a call needs a
   * deeper stack (Warp.ensureLocal moves each lane's bytes to lane * newStride): its shadow moves
   * the same way, or the caller's written call parameters would read as never written.
   */
  private shadowOf(bank: Bank, stride: number): Uint8Array {
    const s = this.perBank.get(bank);
    if (s && s.stride === stride && s.shadow.length >= bank.size) return s.shadow;
    const shadow = new Uint8Array(bank.size);
    if (s && s.stride !== stride) {
      for (let l = 0; l < 32; l++) shadow.set(s.shadow.subarray(l * s.stride, (l + 1) * s.stride), l * stride);
    } else if (s) shadow.set(s.shadow);
    this.perBank.set(bank, { shadow, stride });
    return shadow;
  }

  private report(w: Warp, space: Space, size: number, lane: number, address: number): void {
    const m = this.machine!;
    const prog = w.frame.fn.prog;
    const pc = w.pc;
    const name = space === Space.Global ? 'global' : space === Space.Shared ? 'shared' : 'local';
    if (this.total++ >= FINDINGS_MAX) return;
    const fi = prog.locFile[pc] ?? -1;
    const ins = prog.instrs[pc];
    this.findings.push({
      space: name, size, function: w.frame.fn.name, pc, ptx: ins ? ptxText(m.program.module.source, ins.src.span) : '',
      file: fi >= 0 ? m.program.files.get(fi) : undefined, line: prog.locLine[pc] ?? 0,
      block: [...w.cta.ctaid] as [number, number, number], thread: coordsOf(w.tidBase + lane, m.launch.block), address,
    });
  }

  barrierArrive(): void { /* barriers do not initialize memory */ }
  barrierRelease(): void { /* nor do releases */ }
  warpSync(): void { /* nor warp syncs */ }
  fence(): void { /* nor fences */ }
}
