/**
 * Host-visible memory (cudaMallocHost, cudaHostAlloc, cudaMallocManaged) shared with the program
 * through a memory file per allocation: the program maps the file at the allocation's device
 * address, ptxdbg holds the same file (opened through /proc) and keeps the device's copy of the
 * range in step at launch boundaries by the pages either side wrote, not the whole range: before
 * a launch the runtime names the pages the host wrote (its write-protect tracking) and ptxdbg
 * reads those from the file; after it, ptxdbg writes back the pages the kernel wrote (the device
 * memory's dirty flags). So a launch costs the same with 1 GiB mapped as with 4 KiB.
 */
import { closeSync, fstatSync, readSync, writeSync } from 'node:fs';
import { PAGE_SHIFT, PAGE_SIZE } from '../exec/memory.js';
import { type Device, WINDOW_BASE } from './device.js';
import { CUDA, CudaError } from './errors.js';

/** The bytes one read or write of a memory file moves at most: node refuses a length past 2^31-1. */
export const IO_CHUNK = 2 ** 30;

interface Range { ptr: bigint; size: number; file: number }

const ioError = (e: unknown): boolean => typeof (e as NodeJS.ErrnoException).code === 'string';

export class MappedRanges {
  private readonly ranges = new Map<bigint, Range>();

  constructor(private readonly device: Device) {}

  /** Share [ptr, ptr+size) (a host-visible allocation, page-aligned) through `file`; both sides hold zeros. */
  map(ptr: bigint, size: number, file: number): void {
    const a = this.device.allocationAt(ptr);
    const kind = a ? this.device.kindOf(a) : undefined;
    if (!a || WINDOW_BASE + BigInt(a.base) !== ptr || kind === undefined || kind === 'device' || size % PAGE_SIZE !== 0 || size < a.size || a.base % PAGE_SIZE !== 0) {
      closeSync(file);
      throw new CudaError(CUDA.invalidValue, `0x${ptr.toString(16)} (${size} bytes) is not a host-visible allocation to share`);
    }
    if (fstatSync(file).size < size) {
      closeSync(file);
      throw new CudaError(CUDA.invalidValue, `the memory file of 0x${ptr.toString(16)} holds fewer than ${size} bytes`);
    }
    this.unmap(ptr);
    this.device.view(ptr, a.size); // in one allocation
    this.ranges.set(ptr, { ptr, size: a.size, file });
    // the zeros malloc wrote are on both sides already: nothing to write back
    this.takeDirty(a.base, a.size);
  }

  /** Forget the range at `ptr` (freed), if shared. */
  unmap(ptr: bigint): void {
    const r = this.ranges.get(ptr);
    if (!r) return;
    closeSync(r.file);
    this.ranges.delete(ptr);
  }

  /** Forget every range (cudaDeviceReset, the connection's end). */
  clear(): void {
    for (const r of this.ranges.values()) closeSync(r.file);
    this.ranges.clear();
  }

  /** Read [ptr, ptr+n) of a shared range from its file (the host wrote it). */
  syncIn(ptr: bigint, n: number): void {
    const r = this.rangeOf(ptr, n);
    const off = Number(ptr - r.ptr);
    const view = this.device.view(ptr, n);
    this.io((k) => readSync(r.file, view, k, Math.min(n - k, IO_CHUNK), off + k), n);
    const base = Number(ptr - WINDOW_BASE);
    this.device.written(ptr, n);
    // not the kernel's writes: they need not go back
    this.takeDirty(base, n);
  }

  /** Write back to their files the pages of shared ranges written since the last sync; the bytes written. */
  syncOut(): number {
    const dirty = this.device.arena.bank.dirty;
    let bytes = 0;
    for (const r of this.ranges.values()) {
      const base = Number(r.ptr - WINDOW_BASE);
      // division and products, not shifts: offsets of a 4 GiB device are past int32
      const first = Math.floor(base / PAGE_SIZE);
      const end = Math.ceil((base + r.size) / PAGE_SIZE);
      for (let p = dirty.indexOf(1, first); p >= 0 && p < end; p = dirty.indexOf(1, p)) {
        let q = p;
        while (q < end && dirty[q] === 1) q++;
        const lo = Math.max(base, p * PAGE_SIZE);
        const hi = Math.min(base + r.size, q * PAGE_SIZE);
        const view = this.device.arena.bank.u8.subarray(lo, hi);
        this.io((k) => writeSync(r.file, view, k, Math.min(hi - lo - k, IO_CHUNK), lo - base + k), hi - lo);
        bytes += hi - lo;
        this.takeDirty(lo, hi - lo);
        p = q;
      }
    }
    return bytes;
  }

  private rangeOf(ptr: bigint, n: number): Range {
    for (const r of this.ranges.values()) if (ptr >= r.ptr && ptr + BigInt(n) <= r.ptr + BigInt(r.size)) return r;
    throw new CudaError(CUDA.invalidValue, `${n} bytes at 0x${ptr.toString(16)} are not inside one shared host allocation`);
  }

  /** All n bytes through `step` (one read or write from a position), or a CudaError. */
  private io(step: (done: number) => number, n: number): void {
    try {
      for (let done = 0; done < n;) {
        const k = step(done);
        if (k <= 0) throw new CudaError(CUDA.invalidValue, 'a shared memory file ended early');
        done += k;
      }
    } catch (e) {
      if (!ioError(e)) throw e;
      throw new CudaError(CUDA.invalidValue, `a shared memory file: ${(e as Error).message}`);
    }
  }

  /**
   * Pages [base, base+n) hold what both sides hold: clear their dirty flags (the bank keeps
   * them as written, so a page known non-zero is never taken for a zero page).
   */
  private takeDirty(base: number, n: number): void {
    const first = base >>> PAGE_SHIFT, last = (base + Math.max(n, 1) - 1) >>> PAGE_SHIFT;
    this.device.onDirtyTaken?.(first, last);
    this.device.arena.bank.clearDirtyPages(first, last);
  }
}
