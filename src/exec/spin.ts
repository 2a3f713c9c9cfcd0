/**
 * Spin and livelock hints for a run stopped by the step limit: which loop the live warps were
 * going round, which warps, and the address they kept reading. The last `window` warp-steps before
 * the limit are observed with a small step log and a load probe; the rest of the run pays nothing.
 */
import type { Machine, StepRecorder } from './machine.js';
import { Access, type Probe } from './probe.js';
import { type Bank, GLOBAL_HI, Space, SPACE_NAMES } from './memory.js';
import { type Cta, type Warp, WarpState } from './state.js';
import { describeGlobalOffset, type ElementInfo } from './fault-site.js';
import { typeSize } from '../ptx/types.js';

/** Warp-steps observed before the limit: enough for many trips round any real spin loop. */
export const SPIN_WINDOW = 1 << 16;

/** Records the window's steps as runs (StepRecorder) into one preallocated buffer, and the warp of each turn. */
class WindowLog implements StepRecorder {
  readonly runs: Int32Array;
  readonly warps: Warp[] = [];
  readonly segStart: number[] = [];
  nrun = 0;
  readonly runBase: number;
  readonly runEnd = Infinity;

  constructor(readonly start: number, steps: number) {
    this.runs = new Int32Array(3 * steps + 3);
    this.runBase = start;
  }

  runsFor(step: number, w: Warp): Int32Array {
    if (this.warps[this.warps.length - 1] !== w) { this.warps.push(w); this.segStart.push(step); }
    return this.runs;
  }

  /** The global instruction index of each of the first `steps` steps of the window. */
  pcs(steps: number): Uint32Array {
    const out = new Uint32Array(steps);
    for (let r = 0; r < this.nrun; r++) {
      const from = this.runs[3 * r]!, to = r + 1 < this.nrun ? this.runs[3 * r + 3]! : steps;
      for (let i = from; i < to && i < steps; i++) out[i] = this.runs[3 * r + 1]! + (i - from);
    }
    return out;
  }
}

/** Counts each warp's reads (and atomics: a CAS spin polls too) per address. */
class PollProbe implements Probe {
  readonly reads = new Map<Warp, Map<string, number>>();

  constructor(readonly inner: Probe | undefined) {}

  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, address: number): void {
    this.inner?.access(w, space, bank, idx, size, lane, acc, address);
    if (acc === Access.Write) return;
    let m = this.reads.get(w);
    if (!m) this.reads.set(w, (m = new Map()));
    const k = `${space}:${address >>> 0}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }

  barrierArrive(w: Warp, id: number, mask: number, expected: number, arriveOnly: boolean): void { this.inner?.barrierArrive(w, id, mask, expected, arriveOnly); }
  barrierRelease(cta: Cta, id: number): void { this.inner?.barrierRelease(cta, id); }
  warpSync(w: Warp, active: number, members: number): void { this.inner?.warpSync(w, active, members); }
  fence(w: Warp, mask: number): void { this.inner?.fence(w, mask); }
}

/** Run `m` to its end; when the step limit stops it, attach spin hints to its fault report. */
export function runObservingSpins(m: Machine, window = SPIN_WINDOW): void {
  const start = Math.max(m.warpSteps, m.opts.maxSteps + 1 - window);
  m.advance(start);
  if (m.finished) return;
  const hints = observeSpins(m, Infinity);
  if (m.fault?.kind === 'step-limit') m.fault.hints = hints;
}

/**
 * Advance `m` to `end` (or its end) watching which loops its warps go round and what they read;
 * the hints describe the live warps of that window. Used at the step limit, on a fresh run or on
 * a recording positioned `SPIN_WINDOW` steps before its end.
 */
export function observeSpins(m: Machine, end: number): string[] {
  const start = m.warpSteps;
  const log = new WindowLog(start, Math.min(end, m.opts.maxSteps + 1) - start);
  const probe = new PollProbe(m.mem.probe);
  const savedRecorder = m.recorder;
  const savedBoundary = m.boundary;
  m.recorder = log;
  m.boundary = 0;
  m.mem.probe = probe;
  try {
    m.advance(end);
  } finally {
    m.recorder = savedRecorder;
    m.boundary = savedBoundary;
    m.mem.probe = probe.inner;
  }
  return spinHints(m, log, probe, m.warpSteps - start);
}

interface Loop { fn: string; lo: number; hi: number; warps: Warp[]; reads: Map<string, number> }

function spinHints(m: Machine, log: WindowLog, probe: PollProbe, steps: number): string[] {
  // how often each live warp executed each pc in the window; the loop is what repeats
  const pcs = new Map<Warp, Map<number, number>>();
  const at = log.pcs(steps);
  for (let i = 0; i < log.warps.length; i++) {
    const w = log.warps[i]!;
    const end = i + 1 < log.warps.length ? log.segStart[i + 1]! : log.start + steps;
    let counts = pcs.get(w);
    if (!counts) pcs.set(w, (counts = new Map()));
    for (let s = log.segStart[i]!; s < end; s++) {
      const g = at[s - log.start]!;
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
  }
  const bases = [...m.globalBase.entries()].sort((a, b) => a[1] - b[1]);
  const fnOf = (g: number): [string, number] => {
    let best = bases[0]!;
    for (const b of bases) if (b[1] <= g) best = b;
    return [best[0], g - best[1]];
  };
  const loops = new Map<string, Loop>();
  for (const [w, counts] of pcs) {
    if (w.state === WarpState.Exited) continue;
    const repeated = [...counts.entries()].filter(([, n]) => n > 1).map(([g]) => g);
    const g = repeated.length ? repeated : [...counts.keys()];
    const [fn, lo0] = fnOf(Math.min(...g));
    const hi = fnOf(Math.max(...g))[1];
    const key = `${fn}:${lo0}:${hi}`;
    let l = loops.get(key);
    if (!l) loops.set(key, (l = { fn, lo: lo0, hi, warps: [], reads: new Map() }));
    l.warps.push(w);
    for (const [a, n] of probe.reads.get(w) ?? []) l.reads.set(a, (l.reads.get(a) ?? 0) + n);
  }
  if (loops.size === 0) return [];
  const elements = new Map<number, ElementInfo>();
  for (const b of m.buffers) elements.set(b.alloc.base, { name: b.name, elemSize: typeSize(b.type), count: b.count });
  const out = [`in the last ${steps} warp-steps before the limit:`];
  for (const l of [...loops.values()].sort((a, b) => b.warps.length - a.warps.length)) {
    const prog = m.program.functions.get(l.fn);
    const lines: number[] = [];
    let file: string | undefined;
    for (let pc = l.lo; pc <= l.hi; pc++) {
      const line = prog?.locLine[pc] ?? 0;
      if (line > 0) lines.push(line);
      const f = prog?.locFile[pc] ?? -1;
      if (file === undefined && f >= 0) file = m.program.files.get(f)?.split('/').pop();
    }
    const src = lines.length && file ? `${file}:${Math.min(...lines)}${Math.max(...lines) !== Math.min(...lines) ? `-${Math.max(...lines)}` : ''}` : '';
    const where = `${src ? src + ' ' : ''}(PTX instructions ${l.lo}-${l.hi} of ${prog?.name ?? l.fn})`;
    const who = describeWarps(l.warps);
    const top = [...l.reads.entries()].sort((a, b) => b[1] - a[1])[0];
    let polls = '';
    if (top) {
      const [sp, addr] = top[0].split(':').map(Number) as [number, number];
      const name = sp === Space.Global ? describeGlobalOffset(m.arena, addr, elements)?.split(';')[0] : undefined;
      const hex = sp === Space.Global ? `0x${((BigInt(GLOBAL_HI) << 32n) | BigInt(addr)).toString(16)}` : `0x${addr.toString(16)}`;
      polls = `; most read: ${SPACE_NAMES[sp]} ${name ? `${name} (${hex})` : hex}, ${top[1]} lane reads`;
    }
    out.push(`  spinning at ${where}: ${who}${polls}`);
  }
  return out;
}

function describeWarps(ws: Warp[]): string {
  const byCta = new Map<number, { cta: Cta; warps: number[] }>();
  for (const w of [...ws].sort((a, b) => a.cta.id - b.cta.id)) {
    let e = byCta.get(w.cta.id);
    if (!e) byCta.set(w.cta.id, (e = { cta: w.cta, warps: [] }));
    e.warps.push(w.tidBase >>> 5);
  }
  const parts = [...byCta.values()].slice(0, 4).map((e) => `block (${e.cta.ctaid.join(',')}) warp${e.warps.length > 1 ? 's' : ''} ${e.warps.sort((a, b) => a - b).join(', ')}`);
  if (byCta.size > 4) parts.push(`and ${byCta.size - 4} more blocks`);
  return parts.join('; ');
}

