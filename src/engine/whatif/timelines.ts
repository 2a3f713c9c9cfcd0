/**
 * The timelines of one engine: the original recording, which no write ever changes, and the
 * what-if timelines that writes fork from it. A write at position P (`set var limit = 6`) makes
 * the launch re-execute from its start with the write applied at P (fork.ts): before P the
 * what-if is the original's shared prefix, from P on it runs with the change. A write made in a
 * what-if timeline adds to its writes (the timeline is re-recorded with all of them); a write in
 * the original starts a new what-if. `timeline original` and `timeline N` travel between them at
 * the same step.
 */
import type { Launch } from '../../exec/launch.js';
import { GLOBAL_HI, FRAME_PARAM_BASE } from '../../exec/memory.js';
import { EngineError } from '../errors.js';
import { PrintError, type ValueHistory } from '../print/index.js';
import { bigintBytes } from '../print/value.js';
import { planAssignment, type PlannedAssignment } from '../print/assign.js';
import type { Session } from '../session.js';
import { laneFrames } from '../threadview.js';
import type { Dim3 } from '../types.js';
import type { Edit, EditTarget } from './edit.js';
import { forkSession } from './fork.js';

/** One timeline as the front ends show it. */
export interface TimelineInfo {
  /** 0: the original recording; N: what-if N. */
  readonly id: number;
  /** `original`, `what-if 1`. */
  readonly name: string;
  readonly current: boolean;
  /** Steps recorded in it. */
  readonly total: number;
  /** Its writes, in step order (none in the original). */
  readonly writes: readonly WriteInfo[];
}

export interface WriteInfo {
  readonly step: number;
  readonly text: string;
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly where: string;
  readonly before: Uint8Array | undefined;
  readonly bytes: Uint8Array;
}

interface WhatIf { readonly id: number; session: Session; edits: Edit[] }

/** What a write did: where it forked, and the session to continue in (undefined: no fork, a convenience variable). */
export interface WriteOutcome {
  readonly session: Session | undefined;
  readonly planned: PlannedAssignment;
  readonly timeline: number;
  readonly step: number;
}

export class Timelines {
  private readonly whatIfs: WhatIf[] = [];
  private currentId = 0;

  /**
   * `startLaunch`: the launch afresh, at its start, with memory of its own, for each fork (a
   * program's launches run in resident memory that their recorded session's machine holds).
   */
  constructor(readonly original: Session, private readonly startLaunch?: () => Launch) {}

  get current(): number { return this.currentId; }

  sessionOf(id: number): Session {
    if (id === 0) return this.original;
    const w = this.whatIfs.find((x) => x.id === id);
    if (!w) throw new EngineError(this.whatIfs.length ? `No what-if timeline ${id} (there ${this.whatIfs.length === 1 ? 'is 1' : `are ${this.whatIfs.length}`}: see "info timeline").` : `No what-if timeline ${id}: none has been made (a write such as "set var x = 1" makes one).`, 'out-of-range');
    return w.session;
  }

  /** Make `id` the current timeline; returns its session. */
  select(id: number): Session {
    const s = this.sessionOf(id);
    this.currentId = id;
    return s;
  }

  list(): TimelineInfo[] {
    const out: TimelineInfo[] = [{ id: 0, name: 'original', current: this.currentId === 0, total: this.original.total, writes: [] }];
    for (const w of this.whatIfs) {
      out.push({
        id: w.id, name: `what-if ${w.id}`, current: this.currentId === w.id, total: w.session.total,
        writes: w.edits.map((e) => ({ step: e.step, text: e.text, block: e.block, thread: e.thread, where: e.where, before: e.before, bytes: e.bytes })),
      });
    }
    return out;
  }

  /**
   * `expr` (an assignment) evaluated in `s` (the current timeline's session) at its position:
   * a write to program state forks (or extends) a what-if timeline; a convenience variable is
   * set in `history` without one. `refuse`: why program state cannot be written here (an
   * EngineError 'bad-write'; convenience variables still can).
   */
  write(s: Session, expr: string, history: ValueHistory | undefined, refuse?: string): WriteOutcome {
    let planned: PlannedAssignment;
    try {
      planned = planAssignment(s.debugInfo(), s.threadView(), expr, history);
    } catch (e) {
      if (e instanceof PrintError) throw new EngineError(e.message, /lvalue|Cannot access|Cannot write|read-only|optimized out/.test(e.message) ? 'bad-write' : 'bad-expression');
      throw e;
    }
    const step = s.position();
    if (planned.target.kind === 'convenience') {
      if (!history) throw new EngineError('Convenience variables need a console (value history) to live in.', 'bad-request');
      history.setConvenience(planned.target.name, planned.value);
      return { session: undefined, planned, timeline: this.currentId, step };
    }
    if (refuse !== undefined) throw new EngineError(refuse, 'bad-write');
    const edit = editOf(s, planned, expr, step);
    const prior = this.currentId === 0 ? [] : this.whatIfs.find((w) => w.id === this.currentId)!.edits;
    const edits = [...prior, edit];
    const fork = forkSession(this.original, edits, this.startLaunch?.());
    follow(s, fork, step);
    checkApplied(fork, planned, expr);
    if (this.currentId === 0) {
      const id = (this.whatIfs.at(-1)?.id ?? 0) + 1;
      this.whatIfs.push({ id, session: fork, edits });
      this.currentId = id;
    } else {
      const w = this.whatIfs.find((x) => x.id === this.currentId)!;
      w.session = fork;
      w.edits = edits;
    }
    return { session: fork, planned, timeline: this.currentId, step };
  }

  /** Move to timeline `id` at the step `from` is at (the last step when that one is shorter). */
  travel(from: Session, id: number): Session {
    const to = this.select(id);
    if (to !== from) follow(from, to, Math.min(from.position(), to.total));
    return to;
  }
}

/** Put `to` at `step` with `from`'s focused thread and selected frame. */
function follow(from: Session, to: Session, step: number): void {
  const block = from.focusBlock();
  const thread = from.focusThread();
  const level = from.selectedFrame;
  to.goto(Math.min(step, to.total));
  to.setFocus(block, thread);
  if (level > 0) to.selectFrame(level);
}

/** The written storage, read back in the fork at its step, must hold the planned bytes (else the write could not be made). */
function checkApplied(fork: Session, planned: PlannedAssignment, expr: string): void {
  const view = fork.threadView();
  const t = planned.target;
  let got: Uint8Array | undefined;
  if (t.kind === 'memory') got = view.readMemory(t.space, t.address, t.size);
  else if (t.kind === 'register') {
    const bits = view.readRegister(t.name);
    if (bits !== undefined) got = bigintBytes(bits, planned.bytes.length);
  }
  const want = planned.bytes;
  if (!got || got.length !== want.length || got.some((b, i) => b !== want[i])) {
    throw new EngineError(`Cannot write ${expr.trim()}: the machine has no such storage at this step.`, 'bad-write');
  }
}

/** The machine-level edit of a planned write by the focused thread of `s` at `step`. */
function editOf(s: Session, p: PlannedAssignment, text: string, step: number): Edit {
  const cta = s.focusBlockId();
  const w = s.where();
  const block = s.focusBlock();
  const thread = s.focusThread();
  const common = { step, bytes: p.bytes, before: p.before, text: text.trim(), block, thread };
  const t = p.target;
  let target: EditTarget;
  let where: string;
  if (t.kind === 'register') {
    const warp = s.focusedWarp();
    if (!warp) throw new EngineError('The focused thread has no registers at this step.', 'bad-write');
    const raw = laneFrames(s.machine, warp, w.lane).raw;
    const frame = raw[Math.min(s.selectedFrame, raw.length - 1)];
    const index = frame ? warp.frames.indexOf(frame) : -1;
    if (index < 0) throw new EngineError('The focused thread has no frame at this step.', 'bad-write');
    target = { kind: 'register', cta, warp: w.warp, lane: w.lane, frame: index, name: t.name };
    where = `register ${t.name.replace(/^%/, '$')} of block (${block.join(',')}) thread (${thread.join(',')})`;
  } else if (t.kind === 'memory') {
    const lo = Number(t.address & 0xffffffffn);
    const hex = `0x${lo.toString(16)}`;
    switch (t.space) {
      case 'global':
        // what-if writes know global memory by its first bank's offsets (src/exec/arena.ts)
        if (Number(t.address >> 32n) > GLOBAL_HI) throw new EngineError(`Cannot write global 0x${t.address.toString(16)}: what-if writes reach the first 4 GiB of device memory only yet.`, 'bad-write');
        target = { kind: 'global', address: lo };
        where = `global 0x${((BigInt(GLOBAL_HI) << 32n) | BigInt(lo)).toString(16)}, ${t.size} bytes`;
        break;
      case 'shared':
        target = { kind: 'shared', cta, address: lo };
        where = `shared ${hex} of block (${block.join(',')}), ${t.size} bytes`;
        break;
      case 'local':
        target = { kind: 'local', cta, warp: w.warp, lane: w.lane, address: lo };
        where = `local ${hex} of thread (${thread.join(',')}), ${t.size} bytes`;
        break;
      case 'param':
        if (lo >= FRAME_PARAM_BASE) {
          target = { kind: 'local', cta, warp: w.warp, lane: w.lane, address: lo };
          where = `param ${hex} (a call's parameter copy) of thread (${thread.join(',')}), ${t.size} bytes`;
        } else {
          target = { kind: 'kernelParam', address: lo };
          where = `kernel parameter buffer ${hex}, ${t.size} bytes (every thread)`;
        }
        break;
    }
  } else throw new EngineError('a convenience variable is not program state', 'bad-request');
  return { ...common, target, where };
}
