/**
 * A register's history for the focused thread: its value after each of its steps that wrote
 * it (a guarded write counts only where the thread's guard held), oldest first.
 */
import { writtenRegisters } from '../ptx/instructions.js';
import { MachineThreadView } from './threadview.js';
import type { Session } from './session.js';

export interface RegisterWrite {
  readonly step: number;
  readonly value: bigint;
  readonly line: number;
  readonly file: string | undefined;
}

export function registerHistory(s: Session, name: string, limit: number): RegisterWrite[] {
  const tl = s.timelineOfFocus();
  const p = s.position();
  const fn = s.where().function;
  const prog = s.program.functions.get(fn);
  const out: RegisterWrite[] = [];
  if (!prog) return out;
  // the instructions that write the register (the one rule: ptx/instructions.ts)
  const writers = new Set<number>();
  const base = s.code.global(fn, 0);
  prog.instrs.forEach((ins, pc) => {
    if (writtenRegisters(ins).includes(name)) writers.add(base + pc);
  });
  try {
    for (let i = 0; i < tl.length && out.length < limit; i++) {
      const g = tl.locs[i]!;
      if (!writers.has(g)) continue;
      const step = tl.steps[i]!;
      // a guarded write happens only where the thread's guard predicate holds
      const guard = prog.instrs[s.code.pc[g]!]!.guard;
      if (guard) {
        s.trace.goto(step);
        const w = s.focusedWarp();
        if (!w) continue;
        const gv = new MachineThreadView(s.machine, w, s.focusLane, 0).readRegister(guard.reg.name);
        if ((gv !== 0n) === guard.negate) continue;
      }
      if (step + 1 > s.total) break;
      s.trace.goto(step + 1);
      const w = s.focusedWarp();
      if (!w) continue;
      const v = new MachineThreadView(s.machine, w, s.focusLane, 0);
      const val = v.function === fn ? v.readRegister(name) : undefined;
      if (val !== undefined) out.push({ step, value: val, line: s.code.line[g]!, file: s.code.fileName(g) });
    }
  } finally {
    s.trace.goto(p);
  }
  return out;
}
