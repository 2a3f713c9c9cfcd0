/**
 * Register liveness of a function, for the lean form of generated blocks (gen.ts): a register a
 * block writes that nothing reads again before it is written anew need not be stored into the
 * register file at all when no one looks at registers (an unrecorded run without probes), only
 * kept in the lane loop's local. Standard backward dataflow (live-in = uses ∪ (live-out − kills))
 * over basic blocks, by register slot, erring towards live wherever an instruction's effect on
 * registers is not plain: calls, returns from a function, traps and unsupported instructions make
 * every register live; a write kills only when it is unconditional and replaces the whole register.
 */
import { type CFunction, Ctl, type CInstr } from '../compiled.js';
import { factsOf } from '../../ptx/instructions.js';
import type { ROperand } from '../../ptx/program.js';

/** Register slots live at an instruction's entry (bit per slot). */
export class Liveness {
  private readonly words: number;
  /** Live-in per basic-block leader (instruction index), as bitsets of `words` words. */
  private readonly leaderIn = new Map<number, Uint32Array>();
  private readonly uses: Int32Array[];
  private readonly kills: Int32Array[];
  private readonly all: boolean[];
  /** Slots that are not the function's own registers (constants, specials, the compiler's, module-scope registers): always live. */
  private readonly other: Uint32Array;

  constructor(private readonly fn: CFunction, slots: number) {
    this.words = (slots + 31) >>> 5;
    this.other = new Uint32Array(this.words).fill(0xffffffff);
    for (const r of fn.prog.regs) if (r.slot >= fn.prog.moduleRegSlots && r.slot < slots) this.other[r.slot >>> 5]! &= ~(1 << (r.slot & 31));
    const code = fn.code;
    this.uses = code.map((c) => usesOf(c));
    this.kills = code.map((c) => killsOf(c));
    this.all = code.map((c) => everythingLive(fn, c));
    this.solve();
  }

  /** Slots live on entry to instruction `pc` (pc = code.length: the function's end), slots not registers included. */
  liveAt(pc: number): Uint32Array {
    const code = this.fn.code;
    const live = new Uint32Array(this.words);
    if (pc < code.length) {
      // walk back from the end of pc's basic block
      let end = pc;
      while (end + 1 < code.length && !this.leaderIn.has(end + 1) && falls(code[end]!)) end++;
      live.set(this.outOf(end));
      for (let i = end; i >= pc; i--) this.transfer(i, live);
    }
    for (let k = 0; k < this.words; k++) live[k]! |= this.other[k]!;
    return live;
  }

  private outOf(i: number): Uint32Array {
    const out = new Uint32Array(this.words);
    for (const s of successors(this.fn.code, i)) {
      const inn = s >= this.fn.code.length ? undefined : this.leaderIn.get(s);
      if (inn !== undefined) for (let k = 0; k < this.words; k++) out[k]! |= inn[k]!;
    }
    return out;
  }

  private transfer(i: number, live: Uint32Array): void {
    if (this.all[i]) { live.fill(0xffffffff); return; }
    for (const s of this.kills[i]!) live[s >>> 5]! &= ~(1 << (s & 31));
    for (const s of this.uses[i]!) live[s >>> 5]! |= 1 << (s & 31);
  }

  private solve(): void {
    const code = this.fn.code;
    const n = code.length;
    // leaders: the first instruction, branch targets, and whatever follows a control instruction
    const lead = new Uint8Array(n + 1);
    lead[0] = 1;
    for (let i = 0; i < n; i++) {
      const c = code[i]!;
      if (!falls(c) || c.ctl !== Ctl.None) lead[i + 1] = 1;
      for (const s of successors(code, i)) if (s !== i + 1) lead[s] = 1;
    }
    const leaders: number[] = [];
    for (let i = 0; i < n; i++) if (lead[i]) { leaders.push(i); this.leaderIn.set(i, new Uint32Array(this.words)); }
    const endOf = (j: number): number => (j + 1 < leaders.length ? leaders[j + 1]! : n) - 1;
    // iterate to the fixpoint, blocks in reverse order (backward problem: few passes)
    for (let changed = true; changed;) {
      changed = false;
      for (let j = leaders.length - 1; j >= 0; j--) {
        const live = this.outOf(endOf(j));
        for (let i = endOf(j); i >= leaders[j]!; i--) this.transfer(i, live);
        const old = this.leaderIn.get(leaders[j]!)!;
        for (let k = 0; k < this.words; k++) if (old[k] !== live[k]) { old.set(live); changed = true; break; }
      }
    }
  }
}

/** Whether control can go on to the next instruction. */
function falls(c: CInstr): boolean {
  if (c.guard >= 0) return true;
  return c.ctl !== Ctl.Bra && c.ctl !== Ctl.Brx && c.ctl !== Ctl.Exit && c.ctl !== Ctl.Ret && c.ctl !== Ctl.Trap;
}

function successors(code: readonly CInstr[], i: number): number[] {
  const c = code[i]!;
  const out: number[] = [];
  if (falls(c)) out.push(i + 1);
  if (c.ctl === Ctl.Bra && c.target >= 0) out.push(c.target);
  if (c.ctl === Ctl.Brx) out.push(...c.brxTargets);
  return out;
}

/** Instructions after which (or at which) every register must be taken as live. */
function everythingLive(fn: CFunction, c: CInstr): boolean {
  switch (c.ctl) {
    case Ctl.None: case Ctl.Bra: case Ctl.Brx: case Ctl.Bar: case Ctl.WarpSync: case Ctl.Exit: return false;
    // a kernel's ret ends its threads like exit; a function's returns values the caller may read from its registers
    case Ctl.Ret: return !fn.prog.isEntry;
    default: return true; // calls, traps, breakpoints, unsupported
  }
}

/** The register slots operand `o` names (registers of vectors, lists, pairs, addresses too), into `out`. */
export function slotsOf(o: ROperand | undefined, out: number[]): void {
  if (o === undefined) return;
  switch (o.kind) {
    case 'reg': out.push(o.reg.slot); break;
    case 'varidx': case 'regplus': out.push(o.reg.slot); break;
    case 'vec': case 'list': for (const x of o.items) slotsOf(x, out); break;
    case 'pair': slotsOf(o.a, out); slotsOf(o.b, out); break;
    case 'addr': slotsOf(o.base, out); break;
    case 'not': case 'neg': slotsOf(o.inner, out); break;
    default: break;
  }
}

/** Whether operand 0 is the destination (written, not read). */
function writesFirst(c: CInstr): boolean {
  return c.src.opcode !== 'call' && factsOf(c.src.opcode).writesDestination;
}

function usesOf(c: CInstr): Int32Array {
  const out: number[] = [];
  const ops = c.src.operands;
  for (let i = writesFirst(c) ? 1 : 0; i < ops.length; i++) slotsOf(ops[i], out);
  // a destination with a sub-word selector (video instructions) keeps the rest of the register: read too
  if (writesFirst(c) && c.src.selectors?.[0] !== undefined) slotsOf(ops[0], out);
  if (c.guard >= 0) out.push(c.guard >> 6);
  return Int32Array.from(out);
}

function killsOf(c: CInstr): Int32Array {
  if (!writesFirst(c) || c.guard >= 0 || c.src.selectors?.[0] !== undefined) return new Int32Array(0);
  const out: number[] = [];
  slotsOf(c.src.operands[0], out);
  return Int32Array.from(out);
}
