/**
 * Calls and returns: direct and indirect calls (lanes grouped by target), system calls, frame
 * set-up (local memory zeroed for determinism), and arguments / return values copied per lane.
 */
import type { Machine } from '../machine.js';
import { isUnsizedParam } from '../../ptx/resolve.js';
import { typeSize } from '../../ptx/types.js';
import { type CInstr, Ctl } from '../compiled.js';
import { Fault } from '../fault.js';
import { type Frame, localRead, localWritten, type Warp } from '../state.js';
import { initFrameMemory } from '../initial-memory.js';
import { FUNC_HI, systemCall } from '../syscalls.js';
import { diverge, reconverge, switchToSubtree, yieldPath } from './divergence.js';
import { mergeParked, runnableSibling } from '../simt/converge.js';
import { newFrame } from './frames.js';
import { firstLane, laneFault } from './faults.js';

export function returnFrom(w: Warp): void {
  const callee = w.frames.pop()!;
  const caller = w.frames[w.frames.length - 1]!;
  const lanes = callee.returned & ~w.exited;
  const callIns = caller.fn.code[callee.callPc]!;
  const info = callIns.call!;
  const prog = callee.fn.prog;
  // copy return values back
  info.rets.forEach((ref, i) => {
    const rv = prog.rets[i];
    if (!rv) return;
    const rreg = prog.retRegs[i];
    copyValue(w, lanes, rreg ? { kind: 'reg', base: rreg.slot * 64, size: ref.size, frame: callee } : { kind: 'mem', off: callee.localBase + rv.frameOffset, size: rv.size },
      ref.kind === 'reg' ? { kind: 'reg', base: ref.base, size: ref.size, frame: caller } : { kind: 'mem', off: caller.localBase + ref.offset, size: ref.size });
  });
  // module-scope registers (ISA 1.x) as the callee left them
  const k = prog.moduleRegSlots * 64;
  if (k > 0) caller.u32.set(callee.u32.subarray(0, k));
  w.sp = callee.localBase;
  w.pool.get(callee.fn)!.push(callee);
  w.setFrame(caller);
  caller.spc[caller.depth - 1] = callee.callPc + 1;
  w.pc = callee.callPc + 1;
  w.mask = caller.smask[caller.depth - 1]!;
}

export function call(mach: Machine, w: Warp, ins: CInstr, m: number): boolean {
  const info = ins.call!;
  if (m === 0) { w.pc++; reconverge(w); return false; }
  let name = info.callee;
  let lanes = m;
  if (name === undefined) {
    // indirect: group lanes by target; other groups wait at this call (pc) and run after
    const u = w.frame.u32;
    const first = firstLane(m);
    const id = u[info.calleeReg + 2 * first]!;
    const hi = u[info.calleeReg + 2 * first + 1]!;
    let same = 0;
    for (let l = 0; l < 32; l++) if ((m >>> l) & 1 && u[info.calleeReg + 2 * l] === id && u[info.calleeReg + 2 * l + 1] === hi) same |= 1 << l;
    if (hi !== FUNC_HI || id >= mach.funcNames.length) {
      throw laneFault(new Fault('bad-call', `indirect call through an invalid function pointer 0x${((BigInt(hi) << 32n) | BigInt(id)).toString(16)}`), first);
    }
    if (same !== m) {
      diverge(mach, w, w.frame, w.pc + 1, [w.pc, same], [w.pc, m & ~same]);
    }
    lanes = same;
    name = mach.funcNames[id]!;
  }
  // an -rdc program links NVIDIA's device runtime (cudadevrt), whose __cudaCDP2* bodies talk to
  // the hardware's scheduler through syscalls: the calls themselves are executed (exec/cdp.ts)
  const callee = name.startsWith('__cudaCDP2') ? undefined : mach.fn(name);
  // A callee that waits at a barrier is entered by the warp's lanes together where they can be:
  // a warp runs one call stack, so lanes left in the caller while a partial path waits at a
  // barrier inside the callee could never reach it (a false deadlock). Paths parked at this call
  // join it; else the caller's other paths run first, up to this call or their own barrier.
  if (callee && info.callee !== undefined && reachesBarrier(mach, name)) {
    const f = w.frame;
    if (mergeParked(f, w.pc, 0xffffffff) !== 0) { w.mask = f.smask[f.depth - 1]!; return false; }
    if (runnableSibling(f, f.fn.code, w.parkedBar)) { w.spins = 0; yieldPath(w, f); return false; }
    if (switchToSubtree(w, f)) return false;
  }
  if (!callee) {
    const handled = systemCall(mach, w, name, info, lanes);
    if (!handled) {
      // a body this launch did not load: reached only through a pointer made by another kernel
      const why = mach.program.bodies.some((d) => d.name === name)
        ? `call to '${name}' through a function pointer: kernel ${mach.launch.kernel} cannot reach it by its own code, so this launch did not load it`
        : `call to '${name}', which has no body in this module and is not a supported system call`;
      throw laneFault(new Fault('bad-call', why), firstLane(lanes));
    }
    w.pc++;
    reconverge(w);
    return false;
  }
  const caller = w.frame;
  caller.spc[caller.depth - 1] = w.pc;
  const nf = newFrame(mach, w, callee);
  nf.callPc = w.pc;
  nf.localBase = (w.sp + 15) & ~15;
  // an unsized (variadic) parameter sits at the frame's end and holds what this call passes
  let frameEnd = callee.frameSize;
  info.args.forEach((ref, i) => {
    const p = callee.prog.params[i];
    if (p && isUnsizedParam(p)) frameEnd = Math.max(frameEnd, p.frameOffset + ref.size);
  });
  w.sp = nf.localBase + ((frameEnd + 15) & ~15);
  if (w.frames.length > 10000) throw laneFault(new Fault('stack-overflow', 'call stack overflow: more than 10000 nested calls (runaway recursion?)'), firstLane(lanes));
  w.ensureLocal(w.sp + 16);
  // zero the callee's frame memory for determinism
  const stride = w.localStride;
  for (let l = 0; l < 32; l++) {
    if (!((lanes >>> l) & 1)) continue;
    w.local.u8.fill(0, l * stride + nf.localBase, l * stride + w.sp);
    localWritten(w, l, nf.localBase, w.sp - nf.localBase);
  }
  const prog = callee.prog;
  // module-scope registers (ISA 1.x): one per thread, whichever function runs
  const k = prog.moduleRegSlots * 64;
  if (k > 0) nf.u32.set(caller.u32.subarray(0, k));
  info.args.forEach((ref, i) => {
    const p = prog.params[i];
    if (!p) return;
    const preg = prog.paramRegs[i];
    copyValue(w, lanes,
      ref.kind === 'reg' ? { kind: 'reg', base: ref.base, size: ref.size, frame: caller } : { kind: 'mem', off: caller.localBase + ref.offset, size: ref.size },
      preg ? { kind: 'reg', base: preg.slot * 64, size: Math.max(4, typeSize(preg.type)), frame: nf } : { kind: 'mem', off: nf.localBase + p.frameOffset, size: isUnsizedParam(p) ? ref.size : p.size });
  });
  nf.depth = 1;
  nf.spc[0] = 0;
  nf.srpc[0] = -1;
  nf.smask[0] = lanes;
  w.frames.push(nf);
  w.setFrame(nf);
  initFrameMemory(mach, w, lanes);
  w.pc = 0;
  w.mask = lanes;
  return false;
}

/** Scratch for copyValue: calls are frequent in -G code, so no allocation per call. */
const COPY_TMP = new Uint8Array(16);
const COPY_VIEW = new DataView(COPY_TMP.buffer);

type ValueLoc = { kind: 'reg'; base: number; size: number; frame: Frame } | { kind: 'mem'; off: number; size: number };

/** Copy a call argument / return value between registers and frame memory, per lane. */
function copyValue(w: Warp, lanes: number, from: ValueLoc, to: ValueLoc): void {
  const size = Math.min(from.size, to.size);
  const stride = w.localStride;
  const u8 = w.local.u8;
  const tmp = COPY_TMP;
  const tv = COPY_VIEW;
  for (let l = 0; l < 32; l++) {
    if (!((lanes >>> l) & 1)) continue;
    if (from.kind === 'mem') localRead(w, l, from.off, size);
    if (from.kind === 'mem' && to.kind === 'mem') {
      localWritten(w, l, to.off, size);
      u8.copyWithin(l * stride + to.off, l * stride + from.off, l * stride + from.off + size);
      continue;
    }
    tmp.fill(0);
    if (from.kind === 'reg') {
      tv.setUint32(0, from.frame.u32[from.base + 2 * l]!, true);
      tv.setUint32(4, from.frame.u32[from.base + 2 * l + 1]!, true);
    } else tmp.set(u8.subarray(l * stride + from.off, l * stride + from.off + Math.min(size, 16)));
    if (to.kind === 'reg') {
      to.frame.u32[to.base + 2 * l] = tv.getUint32(0, true);
      to.frame.u32[to.base + 2 * l + 1] = size > 4 ? tv.getUint32(4, true) : 0;
    } else {
      localWritten(w, l, to.off, size);
      u8.set(tmp.subarray(0, Math.min(size, 16)), l * stride + to.off);
    }
  }
}

/** Whether `name` or a function it calls directly or indirectly by name contains a barrier (cached per machine). */
function reachesBarrier(mach: Machine, name: string): boolean {
  const known = mach.barrierCallees.get(name);
  if (known !== undefined) return known;
  mach.barrierCallees.set(name, false); // recursion: assume none while looking
  const fn = mach.fn(name);
  let found = false;
  for (const ins of fn?.code ?? []) {
    if (ins.ctl === Ctl.Bar) { found = true; break; }
    const callee = ins.call?.callee;
    if (ins.ctl === Ctl.Call && callee !== undefined && mach.fn(callee) && reachesBarrier(mach, callee)) { found = true; break; }
  }
  mach.barrierCallees.set(name, found);
  return found;
}
