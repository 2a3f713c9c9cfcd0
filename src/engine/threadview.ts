/**
 * ThreadView over a live Machine: the focused thread's registers, frames and memory, read without
 * side effects (no dirty marks, no probe calls, faults turned into `undefined`).
 */
import type { ProgFunction } from '../ptx/resolve.js';
import { inlineChain } from './inlined.js';
import { typeSize } from '../ptx/types.js';
import type { Machine } from '../exec/machine.js';
import { FRAME_PARAM_BASE, GLOBAL_HI, globalOffset, Space, spaceOfWindow } from '../exec/memory.js';
import { windowOf } from './spaces.js';
import { type Frame, type Warp, WarpState } from '../exec/state.js';
import { Fault } from '../exec/fault.js';
import { coordsOf } from '../exec/launch.js';
import { Access } from '../exec/probe.js';
import type { Dim3, FrameInfo, SpaceName, ThreadView } from './types.js';

const SPACE: Record<SpaceName, Space> = {
  global: Space.Global, shared: Space.Shared, local: Space.Local, const: Space.Const, param: Space.Param, generic: Space.Generic,
};

/** Index (in w.frames) of the innermost frame holding `lane`, or -1 when the lane has exited. */
export function laneFrameIndex(w: Warp, lane: number): number {
  if ((w.exited >>> lane) & 1) return -1;
  const bit = 1 << lane;
  for (let i = w.frames.length - 1; i >= 0; i--) {
    const f = w.frames[i]!;
    for (let j = 0; j < f.depth; j++) if (f.smask[j]! & bit) return i;
  }
  return -1;
}

/** The instruction `lane` issues next in frame index `fi` (its innermost frame). */
export function lanePc(w: Warp, lane: number, fi: number): number {
  const f = w.frames[fi]!;
  // a warp waiting at a barrier has issued it: it is shown at the barrier, not the line after
  if (fi === w.frames.length - 1 && (w.mask >>> lane) & 1) return w.state === WarpState.AtBarrier && w.pc > 0 ? w.pc - 1 : w.pc;
  const bit = 1 << lane;
  for (let j = f.depth - 1; j >= 0; j--) if (f.smask[j]! & bit) return j === f.depth - 1 && f === w.frame ? w.pc : f.spc[j]!;
  return w.pc;
}

/**
 * The lane's call stack, innermost first. `hide`: how many innermost inlined frames are hidden
 * (gdb's stop at the start of an inlined block shows the call site; a `step` then enters it).
 */
export function laneFrames(m: Machine, w: Warp, lane: number, hide = 0): { frames: FrameInfo[]; raw: Frame[] } {
  const top = laneFrameIndex(w, lane);
  const frames: FrameInfo[] = [];
  const raw: Frame[] = [];
  if (top < 0) return { frames, raw };
  const fileName = (fi: number): string | undefined => (fi >= 0 ? m.program.files.get(fi) : undefined);
  for (let i = top; i >= 0; i--) {
    const f = w.frames[i]!;
    const pc = i === top ? lanePc(w, lane, i) : w.frames[i + 1]!.callPc;
    const prog = f.fn.prog;
    // functions inlined at pc (optimized -lineinfo code) are frames too, sharing the real one's registers
    const chain = inlineChain(m.program, prog, pc);
    for (const c of (chain?.frames ?? []).slice(i === top ? hide : 0)) {
      frames.push({ level: frames.length, function: c.function, pc, file: fileName(c.file), line: c.line, inlined: true });
      raw.push(f);
    }
    const file = chain ? chain.outer.file : prog.locFile[pc] ?? -1;
    frames.push({ level: frames.length, function: f.fn.name, pc, file: fileName(file), line: chain ? chain.outer.line : prog.locLine[pc] ?? 0 });
    raw.push(f);
  }
  return { frames, raw };
}

export function threadCoords(m: Machine, w: Warp, lane: number): Dim3 {
  return coordsOf(w.tidBase + lane, m.launch.block);
}

export class MachineThreadView implements ThreadView {
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly frames: readonly FrameInfo[];
  readonly function: string;
  readonly pc: number;
  private readonly frame: Frame | undefined;
  private readonly fn: ProgFunction;
  private readonly regs: Map<string, { slot: number; type: string }>;

  constructor(private readonly m: Machine, private readonly w: Warp, private readonly lane: number, level = 0, hide = 0) {
    this.block = [...w.cta.ctaid] as Dim3;
    this.thread = threadCoords(m, w, lane);
    const { frames, raw } = laneFrames(m, w, lane, hide);
    this.frames = frames;
    const sel = Math.min(level, Math.max(0, frames.length - 1));
    this.frame = raw[sel];
    this.fn = this.frame?.fn.prog ?? m.kernel;
    this.function = this.fn.name;
    this.pc = frames[sel]?.pc ?? w.pc;
    this.regs = new Map(this.fn.regs.map((r) => [r.name, { slot: r.slot, type: r.type }]));
  }

  get program() { return this.m.program; }

  registerNames(): string[] {
    return this.fn.regs.map((r) => r.name);
  }

  registerType(name: string): string | undefined {
    return this.regs.get(normReg(name))?.type;
  }

  readRegister(name: string): bigint | undefined {
    const r = this.regs.get(normReg(name));
    if (!r || !this.frame) return undefined;
    const u = this.frame.u32;
    const o = r.slot * 64 + 2 * this.lane;
    if (r.type === 'pred') return this.frame.i32[o] !== 0 ? 1n : 0n;
    const lo = BigInt(u[o]!);
    if (typeSize(r.type) <= 4) return lo;
    return (BigInt(u[o + 1]!) << 32n) | lo;
  }

  readSpecial(name: string, comp: number): number | undefined {
    const m = this.m;
    switch (name) {
      case 'tid': return this.thread[comp];
      case 'ntid': return m.launch.block[comp];
      case 'ctaid': return this.block[comp];
      case 'nctaid': return m.launch.grid[comp];
      case 'laneid': return this.lane;
      case 'warpid': return Math.floor(this.w.tidBase / 32);
      case 'nwarpid': return Math.ceil((m.launch.block[0] * m.launch.block[1] * m.launch.block[2]) / 32);
      case 'clock': return this.w.clock() >>> 0;
      case 'smid': return 0;
      default: return undefined;
    }
  }

  readMemory(space: SpaceName, address: bigint, size: number): Uint8Array | undefined {
    if (size <= 0 || size > 1 << 24 || address < 0n) return undefined;
    const sp = SPACE[space];
    const lo = Number(address & 0xffffffffn);
    let hi = Number((address >> 32n) & 0xffffffffn);
    if (sp === Space.Global && hi === 0) hi = GLOBAL_HI;
    const end = lo + size - 1;
    if (end > 0xffffffff) return undefined;
    const w = this.w;
    const probe = w.mem.probe;
    try {
      w.mem.probe = undefined;
      const a = w.translate(sp, lo, hi, 1, this.lane, Access.Read);
      const bank = w.xbank;
      const b = w.translate(sp, end, hi, 1, this.lane, Access.Read);
      if (w.xbank !== bank || b - a !== size - 1) return undefined;
      if (sp === Space.Global || (sp === Space.Generic && spaceOfWindow(hi) === Space.Global)) {
        if (w.mem.global.checkAt(globalOffset(hi, lo), size) < 0) return undefined;
      }
      return bank.u8.slice(a, a + size);
    } catch (e) {
      if (e instanceof Fault) return undefined;
      throw e;
    } finally {
      w.mem.probe = probe;
    }
  }

  symbolAddress(name: string): { space: SpaceName; address: bigint } | undefined {
    const m = this.m;
    const fr = this.frame;
    for (const v of this.fn.frameVars) {
      if (v.name !== name || !fr) continue;
      if (v.space === 'param') return { space: 'param', address: BigInt(FRAME_PARAM_BASE + fr.localBase + v.frameOffset) };
      return { space: 'local', address: BigInt(fr.localBase + v.frameOffset) };
    }
    for (const v of [...this.fn.params, ...this.fn.rets]) {
      if (v.name !== name) continue;
      if (v.storage === 'kernelParam') return { space: 'param', address: BigInt(v.frameOffset) };
      if (fr) return { space: 'param', address: BigInt(FRAME_PARAM_BASE + fr.localBase + v.frameOffset) };
    }
    for (const v of [...m.program.globals, ...m.program.shared]) {
      if (v.name !== name) continue;
      const a = m.addressOf(v);
      if (!a) return undefined;
      if (v.space === 'shared') return { space: 'shared', address: BigInt(a.lo) };
      if (v.space === 'const') return { space: 'const', address: BigInt(a.lo) };
      // module-scope .local: its fixed place in the thread's local memory (exec layout moduleLocals)
      if (v.space === 'local') return { space: 'local', address: BigInt(a.lo) };
      return { space: 'global', address: (BigInt(a.hi) << 32n) | BigInt(a.lo >>> 0) };
    }
    return undefined;
  }
}

function normReg(name: string): string {
  return name.startsWith('$') ? '%' + name.slice(1) : name;
}

/** Generic address of a state-space address (what `cvta.to` would give back). */
export function genericOf(space: SpaceName, address: bigint): bigint {
  if (space === 'generic' || space === 'global') return address;
  return (BigInt(windowOf(space)) << 32n) | (address & 0xffffffffn);
}

/**
 * A thread that has exited or whose block has retired: no registers or stack remain, but what
 * outlives it does — global memory, constants and the kernel's parameters — so that after the last
 * step `print out[3]`, `watch out[3]` and `reverse-continue` still work (the rr habit). Names are
 * resolved in the kernel's scope at its last instruction.
 */
export class FinishedThreadView implements ThreadView {
  readonly frames: readonly FrameInfo[];
  readonly function: string;
  readonly pc: number;

  constructor(private readonly m: Machine, readonly block: Dim3, readonly thread: Dim3) {
    const k = m.kernel;
    this.function = k.name;
    // the kernel's last real instruction: an implied exit after a final `ret` is outside DWARF's range
    let pc = Math.max(0, k.instrs.length - 1);
    while (pc > 0 && /^(ret|exit)$/.test(k.instrs[pc - 1]!.opcode) && !k.instrs[pc - 1]!.guard) pc--;
    this.pc = pc;
    // one frame, so that names resolve in the kernel's scope; nothing in it is readable but memory
    const fi = k.locFile[this.pc] ?? -1;
    this.frames = [{ level: 0, function: k.name, pc: this.pc, file: fi >= 0 ? m.program.files.get(fi) : undefined, line: k.locLine[this.pc] ?? 0 }];
  }

  get program() { return this.m.program; }
  registerNames(): string[] { return []; }
  registerType(): string | undefined { return undefined; }
  readRegister(): bigint | undefined { return undefined; }

  readSpecial(name: string, comp: number): number | undefined {
    switch (name) {
      case 'tid': return this.thread[comp];
      case 'ntid': return this.m.launch.block[comp];
      case 'ctaid': return this.block[comp];
      case 'nctaid': return this.m.launch.grid[comp];
      default: return undefined;
    }
  }

  readMemory(space: SpaceName, address: bigint, size: number): Uint8Array | undefined {
    if (size <= 0 || size > 1 << 24 || address < 0n) return undefined;
    const lo = Number(address & 0xffffffffn);
    const hi = Number((address >> 32n) & 0xffffffffn);
    const m = this.m;
    if (space === 'global' || (space === 'generic' && spaceOfWindow(hi) === Space.Global)) {
      if ((hi !== 0 && spaceOfWindow(hi) !== Space.Global) || m.arena.checkAt(globalOffset(hi, lo), size) < 0) return undefined;
      return m.arena.bytes(globalOffset(hi, lo), size).slice();
    }
    const bank = space === 'param' ? m.paramBank : space === 'const' ? m.constBank : undefined;
    if (!bank || lo + size > bank.u8.length) return undefined;
    return bank.u8.slice(lo, lo + size);
  }

  symbolAddress(name: string): { space: SpaceName; address: bigint } | undefined {
    const m = this.m;
    for (const v of m.kernel.params) if (v.name === name) return { space: 'param', address: BigInt(v.frameOffset) };
    for (const v of m.program.globals) {
      if (v.name !== name) continue;
      const a = m.addressOf(v);
      if (!a) return undefined;
      if (v.space === 'const') return { space: 'const', address: BigInt(a.lo) };
      if (v.space === 'local') return { space: 'local', address: BigInt(a.lo) };
      return { space: 'global', address: (BigInt(a.hi) << 32n) | BigInt(a.lo >>> 0) };
    }
    return undefined;
  }
}
