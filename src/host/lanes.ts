/**
 * Every faulting thread of a launch, for `ptxdbg sanitize` (compute-sanitizer reports each thread
 * that faulted; a plain run stops at the first lane). The launch runs again from the memory it
 * started with, deterministically, with refused accesses noted instead of thrown
 * (MemoryContext.faultSink) and sent to a scratch bank, so each warp goes on past its fault. Each
 * warp's faults are those of its first faulting instruction: what it did after that read
 * scratch bytes a GPU never returned. Memory then goes back to what the plain run left, which is
 * what the program sees.
 */
import type { FaultReport, RunOptions } from '../exec/machine.js';
import type { LaneFault, Warp } from '../exec/state.js';
import type { Probe } from '../exec/probe.js';
import { restoreSaved, savePages, type SavedPages } from '../exec/bank-pages.js';
import type { Device, LaunchRequest } from './device.js';

/** The rerun past a fault stops after this many warp-steps at most (the faults found by then are reported). */
const RERUN_STEPS = 50_000_000;

/**
 * Observes nothing: a probe that does not know CTAs by id keeps each CTA's objects its own
 * (no reuse), so a noted warp still names its block when the run is over.
 */
const KEEP_CTAS: Probe = {
  spaces: 0,
  access() { /* nothing to observe */ },
  barrierArrive() { /* nor barriers */ },
  barrierRelease() { /* nor releases */ },
  warpSync() { /* nor warp syncs */ },
  fence() { /* nor fences */ },
};

/** Of each warp's noted faults, the lanes of its first faulting instruction (lanes ascend within one). */
function firstPerWarp(sink: readonly LaneFault[]): LaneFault[] {
  const seen = new Map<Warp, { pc: number; lane: number; open: boolean }>();
  return sink.filter((l) => {
    const s = seen.get(l.warp);
    if (!s) { seen.set(l.warp, { pc: l.pc, lane: l.fault.lane, open: true }); return true; }
    if (s.open && l.pc === s.pc && l.fault.lane > s.lane) { s.lane = l.fault.lane; return true; }
    s.open = false;
    return false;
  });
}

/** Every thread's first fault in the launch, or undefined when they cannot be had. */
export function faultingLanes(device: Device, r: LaunchRequest, opts: RunOptions, before: SavedPages): FaultReport[] | undefined {
  const bank = device.arena.bank;
  // device malloc in the kernel may have grown the bank: then the start cannot be restored
  if (bank.u8.length !== before.size) return undefined;
  // the pages that may be non-zero only: a device of gigabytes is mostly never touched
  const after = savePages(bank);
  restoreSaved(bank, before);
  const sink: LaneFault[] = [];
  let lanes: FaultReport[] | undefined;
  try {
    lanes = device.run(r, { ...opts, maxSteps: Math.min(opts.maxSteps, RERUN_STEPS) }, 1, sink, KEEP_CTAS).laneFaults;
  } finally {
    restoreSaved(bank, after);
  }
  if (!lanes || lanes.length === 0) return undefined;
  const keep = new Set(firstPerWarp(sink));
  return lanes.filter((_, i) => keep.has(sink[i]!));
}
