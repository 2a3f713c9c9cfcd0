/**
 * Memory watch by re-execution: replay the intervals of the trace that can contain an access to
 * the watched bytes with a probe attached, and collect each access with the value before and
 * after. Write watches on global memory replay only intervals whose next checkpoint lists a
 * written page of the range; everything else replays every interval in the requested span.
 */
import type { Machine } from '../exec/machine.js';
import { type Bank, PAGE_SHIFT, Space } from '../exec/memory.js';
import { Access, type Probe } from '../exec/probe.js';
import type { Cta, Warp } from '../exec/state.js';
import { residentIds } from '../trace/checkpoint.js';
import { ctaOfKey, type Trace, type WarpKey, warpKey, warpOfKey } from '../trace/trace.js';
import type { DataSpace, WatchKind } from './types.js';

export interface WatchTarget {
  readonly space: DataSpace;
  /** State-space address (for global, the arena offset = low word of the address). */
  readonly address: number;
  readonly size: number;
  /** Owner of shared (CTA linear id) / local (warp key and lane) memory. */
  readonly ctaId: number;
  readonly warpKey: WarpKey;
  readonly lane: number;
}

export interface AccessEvent {
  readonly step: number;
  readonly warpKey: WarpKey;
  readonly lane: number;
  readonly acc: Access;
  readonly before: Uint8Array | undefined;
  after: Uint8Array | undefined;
}

class WatchProbe implements Probe {
  readonly events: AccessEvent[] = [];
  constructor(private readonly m: Machine, private readonly t: WatchTarget) {}

  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, address: number): void {
    const t = this.t;
    let lo = address;
    switch (t.space) {
      case 'global': if (space !== Space.Global) return; break;
      case 'shared': if (space !== Space.Shared || w.cta.id !== t.ctaId) return; break;
      case 'local':
        // local and call-frame param accesses both land in the thread's local bank
        if (bank !== w.local || lane !== t.lane || warpKey(w) !== t.warpKey) return;
        lo = idx - lane * w.localStride;
        break;
    }
    if (lo + size <= t.address || lo >= t.address + t.size) return;
    this.events.push({ step: this.m.mem.step, warpKey: warpKey(w), lane, acc, before: readTarget(this.m, t), after: undefined });
  }
  barrierArrive(): void {}
  barrierRelease(_c: Cta, _id: number): void {}
  warpSync(): void {}
  fence(): void {}
}

/** The watched bytes in the machine's current state (undefined when their owner is gone). */
export function readTarget(m: Machine, t: WatchTarget): Uint8Array | undefined {
  switch (t.space) {
    case 'global':
      return m.arena.bank.u8.slice(t.address, t.address + t.size);
    case 'shared': {
      const c = m.resident.find((x) => x.id === t.ctaId);
      return c ? c.shared.u8.slice(t.address, t.address + t.size) : undefined;
    }
    case 'local': {
      const c = m.resident.find((x) => x.id === ctaOfKey(t.warpKey));
      const w = c?.warps[warpOfKey(t.warpKey)];
      if (!w || t.address + t.size > w.localStride) return undefined;
      const o = t.lane * w.localStride + t.address;
      return w.local.u8.slice(o, o + t.size);
    }
  }
}

/** Can the watched memory's owner (a block for shared/local) be alive during interval i? */
function ownerAlive(trace: Trace, i: number, t: WatchTarget): boolean {
  if (t.space === 'global') return true;
  const cta = t.space === 'shared' ? t.ctaId : ctaOfKey(t.warpKey);
  const cp = trace.checkpoints[i];
  const next = trace.checkpoints[i + 1];
  if (next && cta >= next.nextCta) return false; // not started by the interval's end
  if (cp && cta < cp.nextCta && !residentIds(cp).includes(cta)) return false; // retired before it
  return true;
}

function mayWrite(trace: Trace, i: number, t: WatchTarget): boolean {
  if (t.space !== 'global') return true;
  const next = trace.checkpoints[i + 1];
  if (!next) return true;
  const first = t.address >>> PAGE_SHIFT;
  const last = (t.address + t.size - 1) >>> PAGE_SHIFT;
  for (const p of next.dirtyGlobal) if (p >= first && p <= last) return true;
  return false;
}

/**
 * Accesses to `t` by steps in [from, to), in step order. Leaves the machine at an arbitrary
 * position: the caller moves it where it wants afterwards.
 */
export function collectAccesses(trace: Trace, t: WatchTarget, kind: WatchKind, from: number, to: number): AccessEvent[] {
  const m = trace.machine;
  const out: AccessEvent[] = [];
  const K = trace.interval;
  from = Math.max(0, from);
  to = Math.min(trace.total, to);
  for (let i = Math.floor(from / K); i * K < to; i++) {
    if (!ownerAlive(trace, i, t)) continue;
    if (kind === 'write' && !mayWrite(trace, i, t)) continue;
    const start = Math.max(from, i * K);
    const end = Math.min(to, (i + 1) * K);
    trace.goto(start);
    const probe = new WatchProbe(m, t);
    m.mem.probe = probe;
    try {
      m.advance(end);
    } finally {
      m.mem.probe = undefined;
    }
    const ev = probe.events;
    for (let k = 0; k < ev.length; k++) {
      const e = ev[k]!;
      let nextDifferentStep = k + 1;
      while (nextDifferentStep < ev.length && ev[nextDifferentStep]!.step === e.step) nextDifferentStep++;
      e.after = nextDifferentStep < ev.length ? ev[nextDifferentStep]!.before : readTarget(m, t);
    }
    for (const e of ev) {
      if (kind === 'read' && e.acc !== Access.Read) continue;
      if (kind === 'write' && e.acc === Access.Read) continue;
      out.push(e);
    }
  }
  return out;
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
