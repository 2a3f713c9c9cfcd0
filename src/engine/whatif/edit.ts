/**
 * A write of the what-if timeline, as the machine applies it: which storage of which thread,
 * the bytes, and the warp-step at which it happens (position `step` is the machine state after
 * `step` warp-steps; the write is part of that state, so everything from `step` on sees it).
 *
 * `installEdits` makes a Machine apply its edits whenever execution reaches their step, so the
 * recording made with it, and every re-execution from its checkpoints (goto, watchpoints,
 * history, origin), sees them: checkpoints taken at or after a step hold its write (the write
 * marks its pages dirty, and register files are copied whole); kernel parameters are not
 * checkpointed (the launch never writes them), so they are set again at the start of each
 * re-execution to what they are at that step.
 */
import type { Machine } from '../../exec/machine.js';
import { FRAME_PARAM_BASE } from '../../exec/memory.js';
import type { Bank } from '../../exec/memory.js';
import type { Dim3 } from '../types.js';

export type EditTarget =
  /** A register of one lane, in frame `frame` (index in the warp's frame stack, 0 = kernel). */
  | { readonly kind: 'register'; readonly cta: number; readonly warp: number; readonly lane: number; readonly frame: number; readonly name: string }
  | { readonly kind: 'global'; readonly address: number }
  | { readonly kind: 'shared'; readonly cta: number; readonly address: number }
  /** A lane's local memory (its stack), or a callee's parameter copy there (param addresses from FRAME_PARAM_BASE). */
  | { readonly kind: 'local'; readonly cta: number; readonly warp: number; readonly lane: number; readonly address: number }
  /** The kernel's parameter buffer (what every thread's ld.param reads). */
  | { readonly kind: 'kernelParam'; readonly address: number };

export interface Edit {
  readonly step: number;
  readonly target: EditTarget;
  readonly bytes: Uint8Array;
  /** Contents before, when they could be read (for `info timeline`). */
  readonly before: Uint8Array | undefined;
  /** The assignment as the user wrote it (`limit = 6`). */
  readonly text: string;
  /** The thread in whose frame it was evaluated. */
  readonly block: Dim3;
  readonly thread: Dim3;
  /** Where it writes, in words (`register %r2`, `shared 0x8 of block (0,0,0)`). */
  readonly where: string;
}

/** Apply one edit to the machine's current state; false when its storage does not exist there. */
export function applyEdit(m: Machine, e: Edit): boolean {
  const t = e.target;
  const put = (bank: Bank, idx: number): boolean => {
    if (idx < 0 || idx + e.bytes.length > bank.u8.length) return false;
    bank.u8.set(e.bytes, idx);
    bank.touch(idx, e.bytes.length); // checkpoints copy only dirty pages
    return true;
  };
  switch (t.kind) {
    case 'global':
      if (m.arena.check(t.address, e.bytes.length) < 0) return false;
      return put(m.arena.bank, t.address);
    case 'kernelParam':
      return put(m.paramBank, t.address);
    case 'shared': {
      const cta = m.resident.find((c) => c.id === t.cta);
      return cta ? put(cta.shared, t.address) : false;
    }
    case 'local': {
      const w = m.resident.find((c) => c.id === t.cta)?.warps[t.warp];
      if (!w) return false;
      const off = t.address >= FRAME_PARAM_BASE ? t.address - FRAME_PARAM_BASE : t.address;
      if (off + e.bytes.length > w.localStride) return false;
      return put(w.local, t.lane * w.localStride + off);
    }
    case 'register': {
      const f = m.resident.find((c) => c.id === t.cta)?.warps[t.warp]?.frames[t.frame];
      const r = f?.fn.prog.regs.find((x) => x.name === t.name);
      if (!f || !r) return false;
      const o = r.slot * 64 + 2 * t.lane;
      let bits = 0n;
      for (let i = e.bytes.length - 1; i >= 0; i--) bits = (bits << 8n) | BigInt(e.bytes[i]!);
      if (r.type === 'pred') { f.i32[o] = bits !== 0n ? 1 : 0; return true; }
      f.u32[o] = Number(bits & 0xffffffffn);
      if (e.bytes.length > 4) f.u32[o + 1] = Number((bits >> 32n) & 0xffffffffn);
      return true;
    }
  }
}

/**
 * Make `m` apply `edits` as execution reaches their steps (see the header). Call before the
 * machine is primed or run.
 */
export function installEdits(m: Machine, edits: readonly Edit[]): void {
  const sorted = [...edits].sort((a, b) => a.step - b.step);
  const params = sorted.filter((e) => e.target.kind === 'kernelParam');
  const paramBase = m.paramBank.u8.slice();
  const prime = m.prime.bind(m);
  const advance = m.advance.bind(m);
  m.prime = (): void => {
    prime();
    for (const e of sorted) if (e.step === 0 && e.target.kind !== 'kernelParam') applyEdit(m, e);
  };
  m.advance = (limit: number): void => {
    const from = m.warpSteps;
    if (params.length) {
      // the parameter buffer as it is at `from` (a checkpoint restore does not hold it)
      m.paramBank.u8.set(paramBase);
      for (const e of params) if (e.step <= from) applyEdit(m, e);
    }
    for (const e of sorted) {
      if (e.step <= from || e.step > limit) continue;
      if (m.warpSteps < e.step) advance(e.step);
      if (m.warpSteps !== e.step) return; // the run ended (or faulted) first
      applyEdit(m, e);
    }
    advance(limit);
  };
}
