/**
 * "Where did this value come from" (Pernosco's dataflow) over a recording: the last step before a
 * position that wrote a register of one thread or a range of memory, the instruction that did it,
 * and that instruction's inputs with their values at that step, each of which can be followed
 * further back. Registers are followed along the thread's own timeline (same call depth); memory
 * by re-executing with a probe, so a hop can cross threads through shared or global memory, and
 * calls through local memory and the parameter frames that live there.
 */
import type { Machine } from '../exec/machine.js';
import { type Bank, Space } from '../exec/memory.js';
import { Access, type Probe } from '../exec/probe.js';
import type { Cta, Warp } from '../exec/state.js';
import type { ProgFunction, RInstruction, ROperand } from '../ptx/resolve.js';
import { factsOf, writtenRegisters } from '../ptx/instructions.js';
import { printName } from '../ptx/names.js';
import { ctaOfKey, type Trace, type WarpKey, warpKey, warpOfKey } from '../trace/trace.js';
import type { CodeIndex } from './code-index.js';
import { MachineThreadView } from './threadview.js';
import { ThreadTimeline } from './timeline.js';
import { collectAccesses, type WatchTarget } from './watch.js';

/** Something whose value can be traced back. */
export type OriginSource =
  | { readonly kind: 'register'; readonly name: string }
  | { readonly kind: 'memory'; readonly target: WatchTarget };

/** One input of the writing instruction, with its value at the writing step. */
export interface OriginInput {
  /** As written in the PTX (`%r3`), or `[global 0x7f00...]` for memory read by a load. */
  readonly text: string;
  /** Raw bits (registers, immediates) or bytes (memory); undefined when unreadable. */
  readonly bits: bigint | undefined;
  readonly bytes: Uint8Array | undefined;
  /** Registers and memory can be followed further back; immediates and specials cannot. */
  readonly follow: OriginSource | undefined;
}

/** The step that last wrote the value, seen from the writing thread. */
export interface OriginHop {
  readonly step: number;
  readonly warpKey: WarpKey;
  readonly lane: number;
  readonly function: string;
  readonly pc: number;
  readonly instruction: RInstruction;
  readonly inputs: readonly OriginInput[];
  /** Memory written by the instruction (stores, atomics), for display. */
  readonly wrote: WatchTarget | undefined;
}

export type OriginResult =
  | { readonly found: true; readonly hop: OriginHop }
  | { readonly found: false; readonly reason: string };

/** Does `ins` write register `name`? (the one rule of src/ptx/instructions.ts) */
export function writesRegister(ins: RInstruction, name: string): boolean {
  return writtenRegisters(ins).includes(name);
}

/** The warp with trace key `key` in the machine's current state, if resident. */
function warpOf(m: Machine, key: WarpKey): Warp | undefined {
  return m.resident.find((c) => c.id === ctaOfKey(key))?.warps[warpOfKey(key)];
}

/** The thread's register value at the machine's current position. */
function registerAt(m: Machine, key: WarpKey, lane: number, name: string): bigint | undefined {
  const w = warpOf(m, key);
  return w ? new MachineThreadView(m, w, lane, 0).readRegister(name) : undefined;
}

/**
 * The last write before `position` to register `name` of thread (`key`, `lane`) in its current
 * frame of function `fn`.
 */
export function registerOrigin(trace: Trace, code: CodeIndex, position: number, key: WarpKey, lane: number, fn: string, name: string): OriginResult {
  const prog = trace.machine.program.functions.get(fn);
  if (!prog || !prog.regs.some((r) => r.name === name)) return { found: false, reason: `${name} is not a register of ${printName(fn)}` };
  const base = code.global(fn, 0);
  const tl = new ThreadTimeline(trace.log, trace.logged, key, lane, code);
  const at = tl.indexAtOrAfter(position);
  // the frame the question is asked in: its depth at the position (the next step of the thread)
  let depth = at < tl.length ? tl.depth[at]! : at > 0 ? tl.depth[at - 1]! : 1;
  // asked in a caller's frame (at a trap the thread's last step is inside __trap): the depth of fn's frame
  const inFn = (i: number): boolean => i >= 0 && i < tl.length && tl.locs[i]! - base >= 0 && tl.locs[i]! - base < prog.instrs.length;
  if (!inFn(at < tl.length ? at : at - 1)) {
    for (let i = Math.min(at, tl.length) - 1; i >= 0; i--) if (tl.depth[i]! < depth && inFn(i)) { depth = tl.depth[i]!; break; }
  }
  for (let i = at - 1; i >= 0; i--) {
    const d = tl.depth[i]!;
    if (d < depth) break; // before this frame was entered
    if (d !== depth) continue; // inside a callee
    const g = tl.locs[i]!;
    const pc = g - base;
    if (pc < 0 || pc >= prog.instrs.length) continue;
    const ins = prog.instrs[pc]!;
    if (!writesRegister(ins, name)) continue;
    const step = tl.steps[i]!;
    if (ins.guard) {
      trace.goto(step);
      const gv = registerAt(trace.machine, key, lane, ins.guard.reg.name);
      if (gv === undefined || (gv !== 0n) === ins.guard.negate) continue;
    }
    return { found: true, hop: describeHop(trace, prog, step, key, lane, pc) };
  }
  return { found: false, reason: `${name} is not written by this thread before step ${position} in this call of ${printName(fn)} (it may be an input of the function or never set)` };
}

/** The last write before `position` to the memory `target` (any thread). */
export function memoryOrigin(trace: Trace, code: CodeIndex, position: number, target: WatchTarget): OriginResult {
  const writes = collectAccesses(trace, target, 'write', 0, position);
  const last = writes[writes.length - 1];
  if (!last) return { found: false, reason: `no write to ${target.space} 0x${target.address.toString(16)} before step ${position}: the value was there at launch` };
  const g = trace.log.loc(last.step);
  const fn = code.fnName(g);
  const prog = trace.machine.program.functions.get(fn)!;
  return { found: true, hop: describeHop(trace, prog, last.step, last.warpKey, last.lane, code.pc[g]!) };
}

/** One lane's memory accesses during one step, found by re-executing that step with a probe. */
class StepProbe implements Probe {
  /** `target` is undefined for memory no thread writes (kernel parameters, constants). */
  readonly seen: { acc: Access; target: WatchTarget | undefined; text: string; bytes: Uint8Array | undefined }[] = [];
  constructor(private readonly key: WarpKey, private readonly lane: number) {}

  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, address: number): void {
    if (lane !== this.lane || warpKey(w) !== this.key) return;
    const bytes = bank.u8.slice(idx, idx + size);
    // local memory and call-frame parameters share the thread's local bank: address by bank offset
    const inLocal = bank === w.local;
    const sp = space === Space.Global ? 'global' : space === Space.Shared ? 'shared' : inLocal ? 'local' : undefined;
    const addr = inLocal ? idx - lane * w.localStride : address;
    if (!sp) {
      this.seen.push({ acc, target: undefined, text: `[${space === Space.Param ? 'kernel parameter' : 'const'} 0x${address.toString(16)}]`, bytes });
      return;
    }
    this.seen.push({ acc, bytes, text: `[${sp} 0x${addr.toString(16)}]`, target: { space: sp, address: addr, size, ctaId: w.cta.id, warpKey: this.key, lane } });
  }
  barrierArrive(): void {}
  barrierRelease(_c: Cta, _id: number): void {}
  warpSync(): void {}
  fence(): void {}
}

function accessesOfStep(trace: Trace, step: number, key: WarpKey, lane: number): StepProbe['seen'] {
  const m = trace.machine;
  trace.goto(step);
  const probe = new StepProbe(key, lane);
  const saved = m.mem.probe;
  m.mem.probe = probe;
  try {
    m.advance(step + 1);
  } finally {
    m.mem.probe = saved;
  }
  return probe.seen;
}

function describeHop(trace: Trace, prog: ProgFunction, step: number, key: WarpKey, lane: number, pc: number): OriginHop {
  const m = trace.machine;
  const ins = prog.instrs[pc]!;
  const accesses = accessesOfStep(trace, step, key, lane);
  trace.goto(step);
  const inputs: OriginInput[] = [];
  const seenRegs = new Set<string>();
  const addReg = (name: string): void => {
    if (seenRegs.has(name)) return;
    seenRegs.add(name);
    inputs.push({ text: name, bits: registerAt(m, key, lane, name), bytes: undefined, follow: { kind: 'register', name } });
  };
  const visit = (o: ROperand): void => {
    switch (o.kind) {
      case 'reg': addReg(o.reg.name); break;
      case 'int': inputs.push({ text: `${o.value} (immediate)`, bits: undefined, bytes: undefined, follow: undefined }); break;
      case 'float': inputs.push({ text: `${o.value} (immediate)`, bits: undefined, bytes: undefined, follow: undefined }); break;
      case 'special': inputs.push({ text: o.name, bits: undefined, bytes: undefined, follow: undefined }); break;
      case 'addr': if (o.base) visit(o.base); break;
      case 'vec': case 'list': for (const x of o.items) visit(x); break;
      case 'not': case 'neg': visit(o.inner); break;
      case 'regplus': case 'varidx': addReg(o.reg.name); break;
      case 'pair': visit(o.a); visit(o.b); break;
      default: break;
    }
  };
  const writesFirst = factsOf(ins.opcode).writesDestination;
  ins.operands.forEach((o, i) => { if (!(writesFirst && i === 0)) visit(o); });
  if (ins.guard) addReg(ins.guard.reg.name);
  // memory read by the instruction (loads, atomics): a followable input, valued as it was then
  for (const a of accesses) {
    if (a.acc === Access.Write) continue;
    inputs.push({ text: a.text, bits: undefined, bytes: a.bytes, follow: a.target ? { kind: 'memory', target: a.target } : undefined });
  }
  const wrote = accesses.find((a) => a.acc !== Access.Read)?.target;
  return { step, warpKey: key, lane, function: prog.name, pc, instruction: ins, inputs, wrote };
}
