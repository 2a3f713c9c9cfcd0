/**
 * Fault reports: a Fault (thrown from a lane loop or the machine) turned into a located report
 * (block, thread, function, PTX line, callers), out-of-bounds global accesses restated by the
 * allocation and element they hit.
 */
import type { Machine } from '../machine.js';
import { typeSize } from '../../ptx/types.js';
import type { Fault } from '../fault.js';
import { lowestLane } from '../int64.js';
import type { Warp } from '../state.js';
import { coordsOf } from '../launch.js';
import { describeGlobalOffset, type ElementInfo } from '../fault-site.js';
import { BANK_BYTES, GLOBAL_HI } from '../memory.js';
import type { FaultReport } from './types.js';

/** An out-of-bounds global access, restated by the allocation and element it hit or ran past. */
export function locateAccess(mach: Machine, e: Fault): string {
  if (e.kind !== 'oob' || e.space !== 'global' || e.address === undefined) return e.message;
  const elements = new Map<number, ElementInfo>();
  for (const b of mach.buffers) elements.set(b.alloc.base, { name: b.name, elemSize: typeSize(b.type), count: b.count });
  // the arena offset: the low word in bank 0 (or a 32-bit address), bank k's past k * 4 GiB
  const hi = Number(e.address >> 32n);
  const off = hi > GLOBAL_HI ? Number(e.address) - GLOBAL_HI * BANK_BYTES : Number(e.address & 0xffffffffn);
  const site = describeGlobalOffset(mach.arena, off, elements);
  if (!site) return e.message;
  const at = /^(.*) at (0x[0-9a-f]+)$/.exec(e.message);
  return at ? `${at[1]} at ${site.replace(/;/, ` (${at[2]});`)}` : `${e.message}: ${site}`;
}

/** Turn a Fault into a located report. */
export function report(mach: Machine, e: Fault, current: Warp | undefined): FaultReport {
  const extra = e as Fault & { warp?: Warp; pc?: number };
  const w = extra.warp ?? current;
  const fnName = w ? w.frame.fn.name : mach.kernel.name;
  const pc = extra.pc ?? (w ? w.pc : 0);
  const prog = w ? w.frame.fn.prog : mach.kernel;
  const lane = e.lane >= 0 ? e.lane : w ? firstLane(w.mask || w.validMask) : 0;
  let block: [number, number, number] | undefined;
  let thread: [number, number, number] | undefined;
  if (w) {
    block = [...w.cta.ctaid] as [number, number, number];
    thread = coordsOf(w.tidBase + lane, mach.launch.block);
  }
  const fileIdx = prog.locFile[pc] ?? -1;
  const file = fileIdx >= 0 ? mach.program.files.get(fileIdx) : undefined;
  const line = prog.locLine[pc] ?? 0;
  const ins = prog.instrs[pc];
  const ptx = ins ? ptxText(mach.program.module.source, ins.src.span) : '';
  const callers: FaultReport['callers'] = [];
  if (w) {
    for (let i = w.frames.length - 1; i > 0; i--) {
      const callPc = w.frames[i]!.callPc;
      const caller = w.frames[i - 1]!.fn.prog;
      const fi = caller.locFile[callPc] ?? -1;
      callers.push({ function: caller.name, file: fi >= 0 ? mach.program.files.get(fi) : undefined, line: caller.locLine[callPc] ?? 0, pc: callPc });
    }
  }
  return {
    kind: e.kind, message: locateAccess(mach, e), block, thread, warp: w ? w.tidBase / 32 : -1, lane, function: fnName, pc, ptx,
    file, line, space: e.space, address: e.address, callers,
  };
}

/** The PTX text of an instruction's source span, on one line. */
export function ptxText(source: string, span: { start: number; end: number }): string {
  return source.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
}

/** The lane a fault is reported for: the first of `m` (lane 0 when none). */
export function firstLane(m: number): number {
  return Math.max(0, lowestLane(m));
}

/** `f` attributed to `lane` unless it already names one. */
export function laneFault(f: Fault, lane: number): Fault {
  if (f.lane < 0) f.lane = lane;
  return f;
}
