/**
 * Memory layout of a launch, done once when the Machine is made: the global arena (launch
 * buffers, .global variables with their initializers, texture and surface images, device heap),
 * the .const bank, the per-kernel shared layout (static, dynamic, reserved) and the kernel
 * parameter bank. Refused with a LaunchError, never crashed, when it exceeds the device memory.
 */
import type { Machine } from '../machine.js';
import type { Program, VarInfo } from '../../ptx/resolve.js';
import { typeSize } from '../../ptx/types.js';
import { type Allocation, Bank, GLOBAL_HI, GlobalArena, windowOfName } from '../memory.js';
import { LaunchMemory, type MemoryContext } from '../state.js';
import { LaunchError, MAX_DEVICE_BYTES } from '../launch.js';
import { sharedImmediateEnd, sharedUsedBy, usesReservedSmem } from '../reach.js';
import { initializerSlots } from '../initializer.js';
import { ImageTable, texelBytes, texelCount } from '../texture/image.js';
import type { ImageSpec } from '../texture/spec.js';
import * as fp from '../float/index.js';
import { FUNC_HI } from '../syscalls.js';

/**
 * Bytes of reserved shared memory a CTA gets when its kernel names %reserved_smem_offset_*
 * (sm_80+ reserve 1 KiB per CTA for the system); offset_0 is its first half, offset_1 its second.
 */
export const RESERVED_SMEM = 1024;
/** Unmapped bytes between a kernel's shared memory and the reserved region (see layoutMemory). */
export const RESERVED_GAP = 16 * 1024;
/** Bytes of a cooperative launch's grid-barrier workspace. */
const GRID_SYNC_BYTES = 256;

/** What the layout gives the Machine (it also fills m.globalAddr, m.sharedOff and m.buffers). */
export interface MemoryLayout {
  arena: GlobalArena;
  constBank: Bank;
  paramBank: Bank;
  /** Bytes of shared memory per CTA (static + dynamic + reserved). */
  sharedSize: number;
  /** Start of the reserved shared region (-1 when the kernel does not use one). */
  reservedBase: number;
  mem: MemoryContext;
  /** Arena offset of a cooperative launch's grid-barrier workspace (0: none). */
  gridSync: number;
  /** The device runtime's per-thread last errors (exec/cdp.ts), when the kernel can call it. */
  lastErrors: Allocation | undefined;
}

/** Grids larger than this keep no device-runtime last errors (cudaGetLastError reports success). */
const MAX_TRACKED_THREADS = 1 << 22;

/** Whether the program can call the device runtime's error calls. */
function usesDeviceRuntime(p: Program): boolean {
  const named = (n: string): boolean => n.startsWith('__cudaCDP2') || n === 'cudaGetLastError' || n === 'cudaPeekAtLastError';
  for (const n of p.prototypes.keys()) if (named(n)) return true;
  for (const d of p.bodies) if (named(d.name)) return true;
  return false;
}

/**
 * Whether the program declares an extern function that may take device memory (malloc, the
 * device runtime): only then does a launch's arena reserve the device heap. Without one the
 * arena is megabytes smaller, which a short run feels (allocating and collecting it).
 */
function callsOutside(p: Program): boolean {
  for (const n of p.prototypes.keys()) if (n !== 'vprintf' && n !== '__assertfail' && n !== '__assert_fail') return true;
  return false;
}

/** Lay out memory for `m`'s launch; m.funcIds must be filled (initializers name functions). */
export function layoutMemory(m: Machine): MemoryLayout {
  const { program, launch, opts, kernel } = m;
  let reservedBase = -1;
  const resident = launch.resident;
  // global arena: launch buffers, .global variables, device heap
  let need = 1 << 16;
  for (const a of launch.args) if (a.kind === 'buffer') need += Math.ceil((a.count * typeSize(a.type)) / 256) * 256 + 512;
  const images = [...launch.args.flatMap((a) => (a.kind === 'image' ? [a.image] : [])), ...(launch.refs ?? []).flatMap((r) => ('image' in r ? [r.image] : []))];
  for (const im of images) need += Math.ceil((texelCount(im) * texelBytes(im.format)) / 256) * 256 + 512;
  for (const g of program.globals) if (g.space === 'global') need += Math.ceil(g.size / 256) * 256 + 512;
  const heapBytes = callsOutside(program) ? opts.heapBytes : 0;
  need += heapBytes + 1024;
  // a word per thread for the device runtime's last errors, outside the kernel's own heap
  const threads = launch.block[0] * launch.block[1] * launch.block[2] * launch.grid[0] * launch.grid[1] * launch.grid[2];
  const errorBytes = threads <= MAX_TRACKED_THREADS && usesDeviceRuntime(program) ? 4 * threads : 0;
  need += errorBytes ? errorBytes + 512 : 0;
  // one host allocation backs all device memory; past this the launch is refused, not crashed
  if (!resident && need > MAX_DEVICE_BYTES) throw new LaunchError(`the launch needs ${need} bytes of device memory, more than the ${MAX_DEVICE_BYTES} the emulator provides`);
  const arena = resident?.arena ?? new GlobalArena(need);
  // resident memory: the module's variables keep their place (and values) from launch to launch
  const fresh = new Set<VarInfo>();
  // .global variables first (their initializers may reference each other)
  const { offsets: constOff, size: constSize } = constLayout(program);
  for (const g of program.globals) {
    if (g.space === 'global') {
      let base = resident?.globals.get(g.name);
      if (base === undefined) {
        // resident memory grows as a program allocates; a launch's own arena is sized for it
        const a = resident ? arena.allocateBlock(Math.max(1, g.size), g.name, 'global', 256, MAX_DEVICE_BYTES) : arena.allocate(Math.max(1, g.size), g.name, 'global');
        if (!a) throw new LaunchError(`device memory is exhausted placing ${g.name} (${g.size} bytes)`);
        base = a.base;
        resident?.globals.set(g.name, base);
        fresh.add(g);
      }
      m.globalAddr.set(g, { lo: base, hi: GLOBAL_HI });
    } else if (g.space === 'const') {
      m.globalAddr.set(g, { lo: constOff.get(g)!, hi: 0 });
    } else if (g.space === 'local') {
      // module-scope .local: a fixed place in each thread's local memory (moduleLocals)
      m.globalAddr.set(g, { lo: moduleLocals(program).offsets.get(g)!, hi: 0 });
    }
  }
  const constBank = resident?.constBank ?? new Bank(Math.max(16, constSize));
  const freshConst = !resident?.constBank;
  if (resident) resident.constBank = constBank;
  for (const g of program.globals) {
    if (g.space === 'global' && (!resident || fresh.has(g))) {
      writeInit(m, g, arena.bank, m.globalAddr.get(g)!.lo);
      arena.bank.touch(m.globalAddr.get(g)!.lo, g.size);
    }
    else if (g.space === 'const' && freshConst) writeInit(m, g, constBank, constOff.get(g)!);
  }
  for (const a of launch.args) {
    if (a.kind !== 'buffer') continue;
    const bytes = a.count * typeSize(a.type);
    const alloc = arena.allocate(bytes, a.name, 'buffer');
    if (a.init) {
      arena.bank.u8.set(a.init.subarray(0, bytes), alloc.base);
      arena.bank.touch(alloc.base, bytes);
    }
    m.buffers.push({ name: a.name, alloc, type: a.type, count: a.count });
  }
  // texture and surface images: texels in the arena, handles in a table (src/exec/texture)
  const table = resident?.images ?? (images.length || launch.refs?.length ? new ImageTable() : undefined);
  const handles: bigint[] = [];
  const place = (name: string, im: ImageSpec, ref: string | undefined): bigint => {
    const bytes = texelCount(im) * texelBytes(im.format);
    const alloc = arena.allocate(bytes, name, 'buffer');
    if (im.init) {
      arena.bank.u8.set(im.init.subarray(0, bytes), alloc.base);
      arena.bank.touch(alloc.base, bytes);
    }
    // a surface is an output: `run --out` writes it like a buffer
    if (im.kind === 'surface') m.buffers.push({ name, alloc, type: 'u8', count: bytes });
    return table!.add({ ...im, name, base: alloc.base }, ref);
  };
  for (const a of launch.args) if (a.kind === 'image') handles.push(place(a.name, a.image, undefined));
  for (const r of launch.refs ?? []) {
    if ('image' in r) place(r.name, r.image, r.name);
    else table!.addSampler(r.name, r.sampler);
  }
  // a cooperative launch's grid-barrier workspace (cooperative groups count arrivals there)
  let gridSync = 0;
  if (launch.cooperative) {
    // resident memory keeps one for all its cooperative launches
    const a = resident?.gridSync ?? (resident ? arena.allocateBlock(GRID_SYNC_BYTES, 'grid barrier', 'global', 256, MAX_DEVICE_BYTES) : arena.allocate(GRID_SYNC_BYTES, 'grid barrier', 'global'));
    if (!a) throw new LaunchError('device memory is exhausted placing the grid barrier');
    if (resident) resident.gridSync = a;
    gridSync = a.base;
    arena.bank.u8.fill(0, a.base, a.base + GRID_SYNC_BYTES);
    arena.bank.touch(a.base, GRID_SYNC_BYTES);
  }
  let lastErrors: Allocation | undefined;
  if (errorBytes) {
    lastErrors = resident ? arena.allocateBlock(errorBytes, 'device runtime errors', 'global', 256, MAX_DEVICE_BYTES) : arena.allocate(errorBytes, 'device runtime errors', 'global');
    if (lastErrors) {
      arena.bank.u8.fill(0, lastErrors.base, lastErrors.base + errorBytes);
      arena.bank.touch(lastErrors.base, errorBytes);
    }
  }
  for (const a of resident?.outputs ?? []) m.buffers.push({ name: a.name, alloc: a, type: 'u8', count: a.size });
  // resident memory has its heap already (device malloc blocks outlive a launch)
  if (!resident) arena.reserveHeap(heapBytes);

  // shared layout, per kernel as ptxas does it: the static variables this kernel and its callees
  // name, from 0 in declaration order, then dynamic (extern, unsized) shared memory
  const usedShared = sharedUsedBy(program, launch.kernel);
  let sh = 0;
  const dynamic: VarInfo[] = [];
  for (const v of program.shared) {
    if (!usedShared.has(v)) continue;
    if (v.decl.linkage === 'extern' || v.size === 0) { dynamic.push(v); continue; }
    sh = Math.ceil(sh / Math.max(1, v.align)) * Math.max(1, v.align);
    m.sharedOff.set(v, sh);
    sh += v.size;
  }
  // ISA 1.x immediate shared addresses (st.shared.s32 [100], r) are storage too
  sh = Math.ceil(Math.max(sh, sharedImmediateEnd(program, launch.kernel)) / 16) * 16;
  for (const v of dynamic) m.sharedOff.set(v, sh);
  let sharedSize = sh + launch.sharedBytes;
  const sharedUser = sharedSize;
  // cooperative groups' reserved shared memory (%reserved_smem_offset_*): real storage of its
  // own, past a gap after the kernel's static and dynamic shared memory, so writes there clobber
  // nothing and the kernel's own accesses past its end (the gap) are still out of bounds
  if (usesReservedSmem(program, launch.kernel)) {
    reservedBase = Math.ceil(sharedSize / 16) * 16 + RESERVED_GAP;
    sharedSize = reservedBase + RESERVED_SMEM;
  }

  // kernel parameters
  let psize = 16;
  for (const p of kernel.params) psize = Math.max(psize, p.frameOffset + p.size);
  const paramBank = new Bank(psize);
  if (launch.args.length !== kernel.params.length) {
    throw new Error(`kernel ${launch.kernel} takes ${kernel.params.length} parameters but the launch gives ${launch.args.length}`);
  }
  let bi = 0;
  let hi = 0;
  launch.args.forEach((a, i) => {
    const p = kernel.params[i]!;
    const off = p.frameOffset;
    const dv = new DataView(paramBank.u8.buffer);
    if (a.kind === 'buffer') {
      const b = m.buffers[bi++]!;
      dv.setUint32(off, b.alloc.base, true);
      // a 4-byte pointer parameter (32-bit addressing) carries the low word alone
      if (p.size >= 8) dv.setUint32(off + 4, GLOBAL_HI, true);
    } else if (a.kind === 'bytes') {
      paramBank.u8.set(a.bytes.subarray(0, p.size), off);
    } else if (a.kind === 'image') {
      const h = handles[hi++]!;
      dv.setUint32(off, Number(h & 0xffffffffn), true);
      dv.setUint32(off + 4, Number(h >> 32n), true);
    } else writeScalar(dv, off, a.type, a.value);
  });
  const mem = new LaunchMemory(arena, constBank, paramBank, sharedSize, sharedUser, reservedBase, program.module.addressSize === 32, table);
  return { arena, constBank, paramBank, sharedSize, reservedBase, mem, gridSync, lastErrors };
}

/** The module's .const bank: each variable's offset (aligned, in declaration order) and the size. */
export function constLayout(program: Program): { offsets: Map<VarInfo, number>; size: number } {
  let size = 0;
  const offsets = new Map<VarInfo, number>();
  for (const g of program.globals) {
    if (g.space !== 'const') continue;
    size = Math.ceil(size / Math.max(1, g.align)) * Math.max(1, g.align);
    offsets.set(g, size);
    size += g.size;
  }
  return { offsets, size };
}

/** The local offset where module-scope .local variables start (below it: 16 bytes no variable uses). */
const MODULE_LOCAL_START = 16;

const moduleLocalCache = new WeakMap<Program, { offsets: Map<VarInfo, number>; end: number }>();

/**
 * Module-scope .local variables (ISA 1.x, and PTX without a stack: "all local memory variables
 * are stored at fixed addresses"): each at its own offset in every thread's local memory, in
 * declaration order, aligned; `end` is where the kernel's frame starts (16-aligned).
 */
export function moduleLocals(program: Program): { offsets: Map<VarInfo, number>; end: number } {
  let r = moduleLocalCache.get(program);
  if (r === undefined) {
    const offsets = new Map<VarInfo, number>();
    let at = MODULE_LOCAL_START;
    for (const g of program.globals) {
      if (g.space !== 'local') continue;
      const a = Math.max(1, g.align);
      at = Math.ceil(at / a) * a;
      offsets.set(g, at);
      at += Math.max(1, g.size);
    }
    r = { offsets, end: Math.ceil(at / 16) * 16 };
    moduleLocalCache.set(program, r);
  }
  return r;
}

function writeScalar(dv: DataView, off: number, type: string, value: number | bigint): void {
  const n = typeof value === 'bigint' ? Number(value) : value;
  switch (type) {
    case 'u8': case 's8': dv.setUint8(off, n & 255); break;
    case 'u16': case 's16': dv.setUint16(off, n & 0xffff, true); break;
    case 'f16': dv.setUint16(off, n, true); break;
    case 'u32': case 's32': dv.setUint32(off, n >>> 0, true); break;
    case 'f32': dv.setFloat32(off, n, true); break;
    case 'f64': dv.setFloat64(off, n, true); break;
    default: dv.setBigUint64(off, BigInt.asUintN(64, BigInt(typeof value === 'bigint' ? value : Math.trunc(n))), true);
  }
}

/** Write a variable's initializer into its bank. */
export function writeInit(m: Machine, v: VarInfo, bank: Bank, base: number): void {
  const init = v.decl.init;
  if (!init) return;
  const dv = new DataView(bank.u8.buffer);
  const slots = initializerSlots(v.decl, m.program.structs, Math.max(v.size, 1));
  let k = 0;
  const put = (i: NonNullable<typeof init>): void => {
    if (i.kind === 'list') { for (const x of i.items) put(x); return; }
    const slot = slots[k++];
    if (slot === undefined || slot.off + (typeSize(slot.type) || 1) > Math.max(v.size, 1)) return;
    const off = base + slot.off;
    const t = slot.type;
    const elem = typeSize(t) || 1;
    if (i.kind === 'int') {
      if (t === 'f32') dv.setFloat32(off, Number(i.value), true);
      else if (t === 'f64') dv.setFloat64(off, Number(i.value), true);
      else if (elem === 8) dv.setBigUint64(off, BigInt.asUintN(64, i.value), true);
      else if (elem === 4) dv.setUint32(off, Number(BigInt.asUintN(32, i.value)), true);
      else if (elem === 2) dv.setUint16(off, Number(BigInt.asUintN(16, i.value)), true); // f16/bf16: a bit pattern
      else dv.setUint8(off, Number(BigInt.asUintN(8, i.value)));
    } else if (i.kind === 'float') {
      if (elem === 8) dv.setFloat64(off, i.value, true);
      else if (t === 'f16') dv.setUint16(off, fp.toF16(i.value, fp.RN), true);
      else if (t === 'bf16') dv.setUint16(off, fp.toBf16(i.value, fp.RN), true);
      else if (elem === 4) {
        if (i.f32Bits !== undefined) dv.setUint32(off, i.f32Bits, true);
        else dv.setFloat32(off, i.value, true);
      } else dv.setUint8(off, Math.trunc(i.value) & 255);
    } else {
      // address of a symbol (generic() or plain)
      const target = [...m.program.globals, ...m.program.shared].find((g) => g.name === i.name);
      let lo = 0, hi = 0;
      if (target) {
        const a = m.addressOf(target);
        if (a) {
          lo = a.lo; hi = a.hi;
          if (i.generic) hi = target.space === 'global' || target.space === 'const' || target.space === 'shared' ? windowOfName(target.space) : windowOfName('local');
        }
      } else {
        const id = m.functionAddress(i.name);
        if (id >= 0) { lo = id; hi = FUNC_HI; }
      }
      const addr = ((BigInt(hi) << 32n) | BigInt(lo >>> 0)) + i.addend;
      if (elem === 8) dv.setBigUint64(off, BigInt.asUintN(64, addr), true);
      else dv.setUint32(off, Number(BigInt.asUintN(32, addr)), true);
    }
  };
  put(init);
}
