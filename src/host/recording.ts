/**
 * The recording of a whole CUDA program (the host side of the program timeline): what `ptxdbg
 * ./app` keeps of one run so the debugger can move anywhere in the program's device history.
 *
 * Data model. A `ProgramRecording` is an ordered list of `ProgramEvent`s, in the order the
 * program's runtime made its requests (one request at a time on the wire, so this order is the
 * program's order):
 *   - `HostEvent`: a CUDA call that changed device memory or read it back (cudaMalloc, cudaFree,
 *     cudaMemcpy* in each direction, cudaMemset*, host-visible pages synced in at a launch,
 *     cudaDeviceReset; graph and stream operations arrive as the copies, sets and launches they
 *     perform, named with the API function the program called) with its host call site and the
 *     bytes it wrote (`writes`: the bytes themselves, or a value for a memset, or zeros for an
 *     allocation);
 *   - `LaunchEvent`: a kernel launch (from the host or, `depth` > 0, from device code), with its
 *     index (from 1, the number `exec --stats` and `--break K#N` count by), kernel, module, grid ×
 *     block, host call site, warp-steps, the printf output, its fault if any, and two memory
 *     images: `start` (the device memory it starts from; undefined for a launch left unrecorded
 *     by `--record K1,K2` or after the budget ran out) and `end` (after it ran, which is also the
 *     memory effect of an unrecorded launch, as one event);
 *   - `OutputEvent`: the program's own stdout/stderr text and kernel printf output, at its place.
 *
 * Memory images are copy-on-write page sets (src/trace/pages.ts) continued across the whole
 * program: an image shares every page unchanged since the previous image, so a launch costs the
 * pages it and the host calls before it wrote, not the device's size. Together with the host
 * events' bytes, global, managed and constant memory can be rebuilt at any position
 * (`memoryAt`): the last image before it, then the host writes after that image.
 *
 * Launches are recorded by their start state, not by their warp-steps: a launch is a
 * deterministic function of its start image, its request and the run options (schedule, seed),
 * so the engine records its warp-step trace when the user first goes into it (`launchSnapshotAt`
 * gives what a Session opens on, exactly as `exec --break` opens one today). Recording every
 * warp-step of every launch as it runs would cost the checkpointing of `ptxdbg debug` on every
 * launch (several times a plain run), against the issue's ≤ 1.5× plain `exec` for a 1,000-launch
 * program; the start images cost a page copy of what changed. Launches still run as `exec` runs
 * them (on worker threads where eligible); a launch whose result depends on the interleaving of
 * CTAs (a race) may replay differently from the parallel run that made its end image.
 */
import type { ArenaState } from '../exec/memory.js';
import { PAGE_SHIFT, PAGE_SIZE } from '../exec/memory.js';
import type { FaultReport } from '../exec/machine.js';
import type { Image } from '../exec/texture/image.js';
import { chunkedPage, type ChunkedPages, isZeroPage, snapDirtyChunked } from '../trace/pages.js';
import { type Device, type LaunchRequest, WINDOW_BASE } from './device.js';
import type { LaunchSnapshot } from './bundle.js';
import { displayName } from './demangle.js';
import type { HostFrame, RawFrame, Symbolizer } from './backtrace.js';
import type { HostOp } from './server.js';

// ---- call sites ---------------------------------------------------------------------------------

/** A host source position (from the program's .debug_line, src/host/hostlines.ts). */
export interface HostLine { readonly file: string; readonly line: number }

/**
 * Address → source line of a host file: `path` the ELF file, `address` an address in its own
 * link-time terms (the ELF's virtual addresses), inside the call instruction. Undefined when the
 * file has no line for it (no -g, or not ours to read).
 */
export type HostLineLookup = (path: string, address: bigint) => HostLine | undefined;

/** Where the program called the CUDA API: its innermost frame outside the runtime and nvcc's glue. */
export interface CallSite {
  /** The API function the program called (cudaMemcpy, cudaLaunchKernel, cudaGraphLaunch, ...). */
  readonly api: string;
  /** The frame (function and offset in its file); undefined when the runtime sent no frames. */
  readonly frame: HostFrame | undefined;
  /** Its source line, when the program has line information. */
  readonly line: HostLine | undefined;
  /** How the user reads it: `app.cu:42 in main`, else `main+0x2a in app`, else `0x12ab in app`. */
  readonly text: string;
}

/**
 * The call site of a request from its frames (the runtime's, backtrace.c): the first frame of
 * the program outside nvcc's launch glue (`kernel`: the launched kernel, whose stub has its name),
 * named by `lines` (file:line), else by its function, else by its address. This is the one place
 * the host line table plugs in.
 */
export function callSiteOf(api: string, frames: readonly RawFrame[], symbols: Symbolizer, lines?: HostLineLookup, kernel?: string): CallSite {
  const shown = symbols.backtrace(frames, kernel);
  // the runtime header's inline templates (cudaMalloc<int>(int**, ...) in cuda_runtime.h) are
  // the API's, not the program's: the call site is their caller
  const frame = shown.find((f) => !f.symbol || !/(^|\s)cuda[A-Z]\w*</.test(displayName(f.symbol))) ?? shown[0];
  const raw = frame ? frames.find((r) => r.offset === frame.offset && r.path.endsWith(frame.module)) : undefined;
  const at = raw ? symbols.linkAddress(raw) : undefined;
  const line = raw && at !== undefined && lines ? lines(raw.path, at - 1n) : undefined;
  const fn = frame?.symbol ? functionName(displayName(frame.symbol)) : undefined;
  const text = !frame ? api
    : line ? `${line.file}:${line.line}${fn ? ` in ${fn}` : ''}`
    : fn ? `${fn} [0x${frame.offset.toString(16)}] in ${frame.module}`
    : `0x${frame.offset.toString(16)} in ${frame.module}`;
  return { api, frame, line, text };
}

/** A demangled name without its parameters and (for a template) its return type: `main`, `ns::f<int>`. */
function functionName(shown: string): string {
  const head = shown.replace(/\(.*$/, '');
  // a template function's name follows its return type: the last space outside <...>
  let depth = 0;
  for (let i = head.length - 1; i >= 0; i--) {
    const c = head[i];
    if (c === '>') depth++;
    else if (c === '<') depth--;
    else if (c === ' ' && depth === 0) return head.slice(i + 1);
  }
  return head;
}

// ---- memory images ------------------------------------------------------------------------------

/** A live allocation or module variable at an image's moment (what a launch can reach). */
export interface ImageRegion {
  /** The allocation's name (`cudaMalloc #3`, a variable's PTX name, `heap`). */
  readonly name: string;
  /** Offset in device memory (the device address less WINDOW_BASE). */
  readonly offset: number;
  readonly size: number;
  readonly kind: 'buffer' | 'global' | 'heap';
  /** cudaMalloc, cudaMallocManaged or cudaMallocHost memory (buffers only). */
  readonly alloc?: 'device' | 'managed' | 'host';
  /** The module a variable belongs to (globals only). */
  readonly module?: number;
}

/** Device memory at one moment, as copy-on-write pages shared with the images before it. */
export interface MemoryImage {
  /** Global memory (the arena), PAGE_SIZE pages in chunks (read with chunkedPage); an all-zero page is shared (isZeroPage). */
  readonly global: ChunkedPages;
  /** The arena's length in bytes then. */
  readonly size: number;
  /** The allocator (what a Machine restores with arena.loadState). */
  readonly arena: ArenaState;
  readonly regions: readonly ImageRegion[];
  /** Each placed module's constant bank (module id → bytes); unchanged banks are shared. */
  readonly constBanks: ReadonlyMap<number, Uint8Array>;
  /** Texture and surface objects, in handle order. */
  readonly images: readonly Image[];
  /** Bytes this image added to the recording (pages and banks it does not share). */
  readonly bytes: number;
}

/** The bytes [offset, offset+n) of global memory in an image (a copy). */
export function readImage(img: MemoryImage, offset: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = offset; at < offset + n;) {
    const p = at >>> PAGE_SHIFT;
    // products, not shifts: offsets past 2 GiB
    const pageEnd = Math.min((p + 1) * PAGE_SIZE, offset + n);
    const page = chunkedPage(img.global, p);
    if (!isZeroPage(page)) out.set(page.subarray(at - p * PAGE_SIZE, pageEnd - p * PAGE_SIZE), at - offset);
    at = pageEnd;
  }
  return out;
}

/**
 * Takes memory images of a Device, each sharing what did not change since the previous one. It
 * owns the device memory's dirty flags while recording: the pages written since the last image
 * are the dirty ones, and those host-visible memory synced (src/host/mapped.ts clears their flags,
 * reported through Device.onDirtyTaken). Flags of host-visible allocations stay set after an
 * image: mapped.ts writes those pages back to the program by them after a launch.
 */
export class ImageTaker {
  private prev: ChunkedPages | undefined;
  private prevArena: ArenaState | undefined;
  private prevConst = new Map<number, Uint8Array>();
  /** Pages whose flags mapped.ts cleared since the last image. */
  private synced = new Set<number>();

  constructor(private readonly device: Device) {
    device.onDirtyTaken = (first, last) => { for (let p = first; p <= last; p++) this.synced.add(p); };
  }

  take(): MemoryImage {
    const d = this.device;
    const bank = d.arena.bank;
    for (const p of this.synced) if (p < bank.dirty.length) bank.dirty[p] = 1;
    this.synced.clear();
    const tally = { bytes: 0 };
    const global = snapDirtyChunked(bank.u8, bank.dirty, this.prev, tally);
    // keep the flags of host-visible pages (mapped.ts syncs by them), clear the rest
    const keep: number[] = [];
    for (const a of d.allocations()) {
      if (d.kindOf(a) === 'device') continue;
      const last = (a.base + Math.max(a.size, 1) - 1) >>> PAGE_SHIFT;
      for (let p = a.base >>> PAGE_SHIFT; p <= last; p++) if (bank.dirty[p] === 1) keep.push(p);
    }
    bank.clearDirty();
    for (const p of keep) bank.dirty[p] = 1;
    this.prev = global;
    let arena = this.prevArena;
    if (arena === undefined || arena.version !== d.arena.version) {
      arena = d.arena.saveState();
      tally.bytes += arena.granules.byteLength + arena.allocs.length * 64;
    }
    this.prevArena = arena;
    const constBanks = new Map<number, Uint8Array>();
    for (const m of d.modules) {
      const cb = m.resident.constBank?.u8;
      if (!cb) continue;
      const old = this.prevConst.get(m.id);
      const same = old !== undefined && old.length === cb.length && old.every((b, i) => b === cb[i]);
      const kept = same ? old : cb.slice();
      if (!same) tally.bytes += kept.byteLength;
      constBanks.set(m.id, kept);
    }
    this.prevConst = constBanks;
    const regions: ImageRegion[] = [];
    const varModule = new Map<number, number>();
    for (const m of d.modules) for (const off of m.resident.globals.values()) varModule.set(off, m.id);
    for (const a of d.arena.allocs) {
      if (a.freed) continue;
      const alloc = d.kindOf(a);
      const kind = a.kind === 'heap' ? 'heap' : a.kind === 'global' && varModule.has(a.base) ? 'global' : alloc ? 'buffer' : undefined;
      if (!kind) continue;
      const module = kind === 'global' ? varModule.get(a.base) : undefined;
      regions.push({ name: a.name, offset: a.base, size: a.size, kind, ...(alloc ? { alloc } : {}), ...(module !== undefined ? { module } : {}) });
    }
    tally.bytes += regions.length * 64;
    return { global, size: bank.u8.length, arena, regions, constBanks, images: [...d.images.images], bytes: tally.bytes };
  }

  /** Stop owning the device's dirty flags. */
  detach(): void { this.device.onDirtyTaken = undefined; }
}

// ---- events -------------------------------------------------------------------------------------

/** Bytes a host event wrote to global memory: the bytes themselves, or one value in all of them. */
export type HostWrite =
  | { readonly offset: number; readonly bytes: Uint8Array }
  | { readonly offset: number; readonly n: number; readonly fill: number };

export interface HostEvent {
  readonly kind: 'host';
  /** This event's place in ProgramRecording.events. */
  readonly index: number;
  /** Launches made before it (it comes after launch `after`; 0: before the first). */
  readonly after: number;
  readonly op: HostOp;
  readonly site: CallSite | undefined;
  /** Global memory it changed (a constant bank written through cudaMemcpyToSymbol shows in the next image). */
  readonly writes: readonly HostWrite[];
}

export interface LaunchEvent {
  readonly kind: 'launch';
  readonly index: number;
  /** The launch's number in the program, from 1 (what `exec --stats` and `--break K#N` count). */
  readonly launch: number;
  readonly kernel: string;
  readonly module: number;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  /** Host call site; a child grid's is its parent's. */
  readonly site: CallSite | undefined;
  /** The request as served (parameter bytes, shared memory, cooperative, depth). */
  readonly request: LaunchRequest;
  /** The kernel's parameter names and their places in `request.params` (undefined: it did not resolve). */
  readonly params: { readonly names: readonly string[]; readonly slots: readonly { offset: number; size: number }[] } | undefined;
  /** Device memory at its start; undefined when it was left unrecorded (not reopenable). */
  readonly start: MemoryImage | undefined;
  /** Device memory after it (its whole memory effect); undefined when recording had stopped. */
  end: MemoryImage | undefined;
  /** Warp-steps it ran (its timeline's length); undefined until it has run. */
  steps: number | undefined;
  /** Its printf output. */
  stdout: string;
  fault: FaultReport | undefined;
}

export interface OutputEvent {
  readonly kind: 'output';
  readonly index: number;
  readonly after: number;
  /** `printf`: a kernel's output (also in its LaunchEvent); `stdout`/`stderr`: the program's own. */
  readonly stream: 'stdout' | 'stderr' | 'printf';
  readonly text: string;
}

export type ProgramEvent = HostEvent | LaunchEvent | OutputEvent;

/** Why recording ended before the program did. */
export type RecordingStop = 'interrupted' | 'budget';

/** What `ptxdbg ./app` recorded of one run of a program. */
export interface ProgramRecording {
  readonly app: string;
  readonly args: readonly string[];
  readonly events: ProgramEvent[];
  /** The launch events, by launch number - 1. */
  readonly launches: LaunchEvent[];
  /** The PTX of each module (by module id) and its label, to reopen a launch. */
  readonly modules: { ptx: string; label: string }[];
  /** Bytes held: images' pages and host events' bytes (the budget counts these). */
  bytes: number;
  /** Set when recording stopped before the program's end. */
  stopped: RecordingStop | undefined;
  /**
   * The index of the first event recorded after the stop: the events go on (launches with no
   * images, host events with no bytes), so the timeline is whole, but memory is known only before it.
   */
  stoppedAt: number | undefined;
  /** The program's exit code, once it has ended. */
  exitCode: number | undefined;
}

/** The launch numbered `n` (from 1), or undefined. */
export function launchAt(rec: ProgramRecording, n: number): LaunchEvent | undefined {
  return rec.launches[n - 1];
}

/**
 * The bytes [address, address+n) of global memory just before event `index` (index =
 * rec.events.length: at the program's end), or undefined when the recording holds no memory
 * there (after recording stopped). Constant memory: the module's bank of the image before it.
 */
export function memoryAt(rec: ProgramRecording, index: number, address: bigint, n: number): Uint8Array | undefined {
  if (rec.stoppedAt !== undefined && index > rec.stoppedAt) return undefined;
  const offset = Number(address - WINDOW_BASE);
  // the last image at or before the position: a launch's end (it precedes the launch's
  // successors) or start (the position is the launch itself)
  let img: MemoryImage | undefined;
  let from = 0;
  for (let i = Math.min(index, rec.events.length) - 1; i >= 0; i--) {
    const e = rec.events[i]!;
    if (e.kind !== 'launch') continue;
    img = e.end;
    from = i + 1;
    if (!img) return undefined;
    break;
  }
  const at = rec.events[index];
  if (at?.kind === 'launch' && at.start) { img = at.start; from = index; }
  const out = img ? readImage(img, offset, n) : new Uint8Array(n);
  for (let i = from; i < index; i++) {
    const e = rec.events[i]!;
    if (e.kind !== 'host') continue;
    for (const w of e.writes) {
      const len = 'bytes' in w ? w.bytes.length : w.n;
      const lo = Math.max(offset, w.offset), hi = Math.min(offset + n, w.offset + len);
      if (lo >= hi) continue;
      if ('bytes' in w) out.set(w.bytes.subarray(lo - w.offset, hi - w.offset), lo - offset);
      else out.fill(w.fill, lo - offset, hi - offset);
    }
  }
  return out;
}

/** A region name safe as a file name (bundle.ts's rule). */
const safe = (s: string): string => s.replace(/[^\w.-]+/g, '_');

/**
 * What reopening launch `n` needs: the launch as a bundle's snapshot (src/host/bundle.ts), the
 * memory it can reach at its start copied out of the recording's pages. `writeBundle` it and
 * open a Session on `kernel.ptx` with that `launch.json` (what `exec --break` does), or build
 * the Launch from it in memory. Undefined when the launch was not recorded.
 */
export function launchSnapshotAt(rec: ProgramRecording, n: number): LaunchSnapshot | undefined {
  const e = launchAt(rec, n);
  const img = e?.start;
  if (!e || !img || !e.params) return undefined;
  const regions = img.regions
    .filter((g) => g.kind !== 'global' || g.module === e.module)
    .map((g) => ({
      name: g.kind === 'heap' ? `heap_${g.offset.toString(16)}` : safe(g.name), offset: g.offset, size: g.size, kind: g.kind,
      variable: g.kind === 'global' ? g.name : undefined, bytes: readImage(img, g.offset, g.size),
    }));
  return {
    ptx: rec.modules[e.module]!.ptx, request: e.request, paramNames: e.params.names, paramSlots: e.params.slots, regions,
    heap: { start: img.arena.heapStart, end: img.arena.heapEnd, top: img.arena.heapTop },
    constBytes: img.constBanks.get(e.module)?.slice(), images: img.images,
  };
}

/** Page size of images (for a reader that walks `MemoryImage.global`). */
export const IMAGE_PAGE_SIZE = PAGE_SIZE;
