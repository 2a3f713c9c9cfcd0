/**
 * CTA barriers (bar.sync / bar.arrive / bar.red, counted or whole-CTA): arrival, deferral while
 * sibling paths can run, release with reductions, and the deadlock report when none can complete.
 */
import type { Machine } from '../machine.js';
import type { CInstr } from '../compiled.js';
import { Fault } from '../fault.js';
import { popc32 } from '../int64.js';
import { type Cta, type Warp, WarpState } from '../state.js';
import { arriveParked } from '../simt/converge.js';
import { deferBarrier, leaveJoin, reconverge } from './divergence.js';
import { firstLane, laneFault } from './faults.js';

export function barrier(mach: Machine, w: Warp, ins: CInstr, m: number): boolean {
  const b = ins.bar!;
  if (m === 0) { w.pc++; reconverge(w); return false; }
  if (b.op !== 'arrive' && deferBarrier(w)) return false;
  if (ins.exec) ins.exec(w, m);
  // sibling paths parked at a bar.sync of the same barrier arrive with this one
  if (b.op === 'sync') m |= arriveParked(w.frame, b);
  const cta = w.cta;
  const lane = firstLane(m);
  const id = b.idReg >= 0 ? w.frame.u32[b.idReg + 2 * lane]! : b.id;
  if (id > 15) throw laneFault(new Fault('invalid', `barrier id ${id} out of range 0..15`), lane);
  const n = popc32(m);
  if (cta.barArrived[id] === 0) {
    cta.barPopc[id] = 0; cta.barAnd[id] = 1; cta.barOr[id] = 0;
    cta.barExpected[id] = b.countReg >= 0 ? w.frame.u32[b.countReg + 2 * lane]! : 0;
  }
  cta.barArrived[id] = cta.barArrived[id]! + n;
  const probe = mach.mem.probe;
  if (probe !== undefined) probe.barrierArrive(w, id, m, cta.barExpected[id]!, b.op === 'arrive');
  if (b.op === 'red') {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const v = (w.frame.i32[b.pred + 2 * l]! !== 0) !== b.predNeg;
      if (v) cta.barPopc[id] = cta.barPopc[id]! + 1;
      else cta.barAnd[id] = 0;
      if (v) cta.barOr[id] = 1;
    }
  }
  w.pc++;
  if (b.op === 'arrive') {
    checkBarriers(mach, cta);
    reconverge(w);
    return false;
  }
  if (b.op === 'sync' && (w.parkedBar === 0 || w.parkedBarId === id)) {
    // lanes waiting at an enclosing reconvergence point run on past it while this path waits
    // at the barrier (an early return exits; lanes that skip the barrier reach the next one)
    const f = w.frame;
    f.spc[f.depth - 1] = w.pc;
    if (leaveJoin(w, f)) {
      w.parkedBar |= m;
      w.parkedBarId = id;
      w.spins = 0;
      checkBarriers(mach, cta);
      return false;
    }
  }
  w.state = WarpState.AtBarrier;
  w.barrierId = id;
  w.barMask = m;
  w.barDst = b.op === 'red' ? b.dst : -1;
  w.barRed = b.redOp;
  checkBarriers(mach, cta);
  return w.state === WarpState.AtBarrier;
}

/** Release every barrier whose expected thread count has arrived (exited threads excused). */
export function checkBarriers(mach: Machine, cta: Cta): void {
  for (let id = 0; id < 16; id++) {
    const arrived = cta.barArrived[id]!;
    if (arrived === 0) continue;
    // an explicit thread count must be met in full (bar.arrive counts too); a whole-CTA
    // barrier only waits for threads that have not exited
    const expected = cta.barExpected[id]! || cta.liveThreads;
    if (arrived < expected) continue;
    cta.barArrived[id] = 0;
    const probe = mach.mem.probe;
    if (probe !== undefined) probe.barrierRelease(cta, id);
    for (const w of cta.warps) {
      if (w.parkedBarId === id) { w.parkedBar = 0; w.parkedBarId = -1; }
      if (w.state !== WarpState.AtBarrier || w.barrierId !== id) continue;
      if (w.barDst >= 0) {
        const red = w.barRed;
        const v = red === 'popc' ? cta.barPopc[id]! : red === 'and' ? cta.barAnd[id]! : cta.barOr[id]!;
        for (let l = 0; l < 32; l++) if ((w.barMask >>> l) & 1) { w.frame.u32[w.barDst + 2 * l] = v; }
      }
      w.state = WarpState.Ready;
      w.barrierId = -1;
      reconverge(w);
    }
  }
}

export function deadlock(cta: Cta): Fault {
  const waiting = cta.warps.filter((w) => w.state === WarpState.AtBarrier);
  const w = waiting[0]!;
  const id = w.barrierId;
  const f = new Fault('deadlock', `deadlock: barrier ${id} in block (${cta.ctaid.join(',')}) can never complete: ${cta.barArrived[id]} thread(s) arrived, ${cta.barExpected[id] || cta.liveThreads} expected; waiting warps: ${waiting.map((x) => x.tidBase / 32).join(', ')}`);
  f.lane = firstLane(w.barMask);
  (f as Fault & { warp?: Warp; pc?: number }).warp = w;
  (f as Fault & { warp?: Warp; pc?: number }).pc = w.pc - 1;
  return f;
}
