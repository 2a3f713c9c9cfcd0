/**
 * Control instructions, issued by the hot loop (run.ts) with the warp's pc and mask saved:
 * branches (uniform, divergent, indexed), calls and returns, exits, barriers, warp syncs, traps.
 */
import type { Machine } from '../machine.js';
import { type CInstr, Ctl } from '../compiled.js';
import { Fault } from '../fault.js';
import type { Warp } from '../state.js';
import { mergeParked, runnableSibling, syncMembers } from '../simt/converge.js';
import { barrier } from './barriers.js';
import { call } from './calls.js';
import { diverge, exitLanes, normalize, reconverge, yieldPath } from './divergence.js';
import { firstLane, laneFault, report } from './faults.js';
import { nextRandom, SPIN_QUANTUM } from './scheduler.js';

/** Returns true when the warp can no longer issue in this quantum (barrier, exit). */
export function control(mach: Machine, w: Warp, ins: CInstr, m: number): boolean {
  const f = w.frame;
  switch (ins.ctl) {
    case Ctl.Bra: {
      const active = w.mask;
      if (m === active) {
        // a diverged warp switches paths after a bounded number of backward branches, so a
        // path spinning on a lock held by another path of the same warp cannot starve it
        if (ins.target <= w.pc && f.depth > 1 && ++w.spins >= mach.spinQuantum) {
          w.pc = ins.target;
          w.spins = 0;
          if (mach.opts.schedule === 'random') mach.spinQuantum = 1 + (nextRandom(mach) % SPIN_QUANTUM);
          yieldPath(w, f);
          return false;
        }
        w.pc = ins.target;
      } else if (m === 0) w.pc++;
      else diverge(mach, w, f, ins.rpc, [ins.target, m], [w.pc + 1, active & ~m]);
      reconverge(w);
      return false;
    }
    case Ctl.Brx: {
      // brx.idx: group lanes by target
      const active = m;
      if (active === 0) { w.pc++; reconverge(w); return false; }
      const groups = new Map<number, number>();
      for (let l = 0; l < 32; l++) {
        if (!((active >>> l) & 1)) continue;
        const idx = f.u32[ins.brxIndex + 2 * l]!;
        const t = ins.brxTargets[idx];
        if (t === undefined) throw laneFault(new Fault('invalid', `brx.idx index ${idx} is outside the target list`), l);
        groups.set(t, (groups.get(t) ?? 0) | (1 << l));
      }
      const entries = [...groups.entries()];
      if (entries.length === 1 && w.mask === active) w.pc = entries[0]![0];
      else diverge(mach, w, f, ins.rpc, ...entries);
      reconverge(w);
      return false;
    }
    case Ctl.Call: return call(mach, w, ins, m);
    case Ctl.Ret: {
      if (m === 0) { w.pc++; reconverge(w); return false; }
      if (w.frames.length === 1) return exitLanes(mach, w, m);
      for (let i = 0; i < f.depth; i++) f.smask[i] = f.smask[i]! & ~m;
      f.returned |= m;
      return normalize(w);
    }
    case Ctl.Exit: {
      if (m === 0) { w.pc++; reconverge(w); return false; }
      return exitLanes(mach, w, m);
    }
    case Ctl.Bar: return barrier(mach, w, ins, m);
    case Ctl.WarpSync: {
      if (m === 0) { w.pc++; reconverge(w); return false; }
      const members = syncMembers(ins, w, m) & w.validMask & ~w.exited;
      if ((members & ~m) !== 0) {
        // lanes of the member mask are on other paths: merge those parked here (the merged
        // path executes at its next step), else let them run first (src/exec/simt)
        if (mergeParked(f, w.pc, members & ~w.parkedBar) !== 0) { w.mask = f.smask[f.depth - 1]!; return false; }
        if (runnableSibling(f, f.fn.code, w.parkedBar)) { w.spins = 0; yieldPath(w, f); return false; }
      }
      if (ins.exec) ins.exec(w, m);
      w.pc++;
      reconverge(w);
      return false;
    }
    case Ctl.Trap: {
      if (m === 0) { w.pc++; reconverge(w); return false; }
      throw laneFault(new Fault('trap', 'trap instruction executed (__trap())'), firstLane(m));
    }
    case Ctl.Brkpt: {
      // "suspends execution" (PTX ISA): a debugger stops here and continue passes it (the
      // engine finds these steps in the log); without one the machine goes on and counts it
      if (m !== 0 && mach.brkptCount++ === 0) mach.firstBrkpt = report(mach, laneFault(new Fault('brkpt', 'brkpt instruction executed'), firstLane(m)), w);
      w.pc++;
      reconverge(w);
      return false;
    }
    default: {
      if (m === 0) { w.pc++; reconverge(w); return false; }
      throw laneFault(new Fault('unsupported', ins.note || 'instruction not supported'), firstLane(m));
    }
  }
}
