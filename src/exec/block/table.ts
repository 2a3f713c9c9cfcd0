/**
 * Which instructions form blocks, and the compiled blocks of each function (by start pc, built on
 * first use). A block is a run of at least MIN_LEN plain instructions (Ctl.None, with a lane
 * loop, not reading %clock) that no label, branch target or reconvergence point splits: control
 * enters it only at its first instruction. The hot loop (machine/run.ts) runs a block only when
 * its whole length fits the turn's budget and no reconvergence point lies inside it; otherwise,
 * and while a probe watches accesses (race checker, initcheck, watchpoints, spin hints), it runs
 * the instructions one by one as before.
 *
 * Tables hang off the CFunction, which Machines of the same program and layout share
 * (machine.ts sameLayoutCache): blocks compiled by one launch serve the next.
 */
import { type CFunction, Ctl, type CInstr } from '../compiled.js';
import { popc32 } from '../int64.js';
import { constantSlots, type Constants } from './constants.js';
import { BLOCK_PROGRESS, type BlockRun, generateBlock } from './gen.js';
import { generateSelfLoop, type LoopRun } from './selfloop.js';
import { Liveness } from './liveness.js';

/** Blocks on unless the environment says PTXDBG_BLOCKS=0 (the per-instruction path, for comparison). */
export const BLOCKS_DEFAULT = typeof process === 'undefined' || process.env['PTXDBG_BLOCKS'] !== '0';

/** Calls of a loop whose lanes disagreed (divergent trip counts) before it is given up (each costs a pass of the first lane). */
const LOOP_REFUSALS = 16;

/** Shorter runs gain nothing from a block. */
const MIN_LEN = 2;

export class Block {
  private plain: BlockRun | undefined = undefined;

  constructor(private readonly code: readonly CInstr[], private readonly consts: Constants, readonly pc: number, readonly len: number,
    private readonly liveness?: () => Liveness) {}

  /** The generated function (made on first use). */
  run(): BlockRun {
    return this.plain ??= this.generate();
  }

  private leanRun: BlockRun | undefined = undefined;

  /**
   * The lean form, for runs in which no one looks at registers (RunOptions.deadStores): the same
   * effects on memory and on every register read later, without the stores of registers dead after
   * the block (deadstores.ts).
   */
  lean(): BlockRun {
    if (this.leanRun !== undefined) return this.leanRun;
    if (this.liveness === undefined) return this.leanRun = this.run();
    return this.leanRun = this.generate(this.liveness().liveAt(this.pc + this.len));
  }

  /** A block of one instruction (singleAt): its closure, set when the table is made. */
  static single(code: readonly CInstr[], consts: Constants, pc: number): Block {
    const b = new Block(code, consts, pc, 1);
    b.plain = single(code[pc]!);
    return b;
  }

  private generate(liveOut?: Uint32Array): BlockRun {
    try {
      return generateBlock(this.code, this.consts, this.pc, this.len, true, () => this.single(), liveOut);
    } catch (e) {
      // a fused text that does not compile (each loop alone did): the instructions one by one
      if (!(e instanceof SyntaxError || e instanceof ReferenceError)) throw e;
      return this.single();
    }
  }

  private selfLoop: LoopRun | null | undefined = undefined;

  /** When the block is the body of a loop closed by the branch after it: that loop run lane by lane (selfloop.ts), else null. */
  loop(lean = false): LoopRun | null {
    if (this.selfLoop !== undefined) return this.selfLoop;
    const bra = this.code[this.pc + this.len];
    this.selfLoop = null;
    // the block's plain (or lean) form too, now: a turn that cannot hold two iterations runs it, and
    // made there first (in the optimized hot loop, where its making has no type feedback) it deopts runWarp
    if (lean) this.lean(); else this.run();
    if (bra !== undefined && bra.ctl === Ctl.Bra) {
      try {
        this.selfLoop = generateSelfLoop(this.code, this.consts, this.pc, this.len, bra) ?? null;
      } catch (e) {
        if (!(e instanceof SyntaxError || e instanceof ReferenceError)) throw e;
      }
    }
    return this.selfLoop;
  }

  private loopRefusals = 0;

  /** The lanes of a warp disagreed on the loop's trip count: after a few such, the loop is not tried again. */
  loopRefused(): void {
    if (++this.loopRefusals >= LOOP_REFUSALS) this.selfLoop = null;
  }

  private singlePlain: BlockRun | undefined = undefined;

  /** The block's instructions one at a time (each its own closure). */
  private single(): BlockRun {
    return this.singlePlain ??= generateBlock(this.code, this.consts, this.pc, this.len, false);
  }
}

/** Per function: its block by start pc (null: none starts there; undefined: not looked at yet). */
export interface BlockTable {
  readonly fn: CFunction;
  readonly at: (Block | null | undefined)[];
  /** Instructions at which control may enter other than by falling through: blocks end before them. */
  readonly entries: Uint8Array;
  /** The function's constant slots (their values inlined into generated code). */
  readonly consts: Constants;
  /** Per instruction inside a run: turns started there so far (blockAt, up to SUFFIX_AFTER). */
  readonly midStarts: Uint8Array;
  /** The function's register liveness, for lean blocks (made on first use). */
  readonly liveness: () => Liveness;
  /** Per instruction: its block of one (singleAt), null when it is not plain. */
  readonly single: (Block | null)[];
}

const tables = new WeakMap<CFunction, BlockTable>();

/** The table blockTable returned last: runWarp asks once per turn, mostly for the same function. */
let last: BlockTable | undefined = undefined;

export function blockTable(fn: CFunction): BlockTable {
  if (last !== undefined && last.fn === fn) return last;
  let t = tables.get(fn);
  if (t === undefined) {
    const code = fn.code;
    const entries = new Uint8Array(code.length + 1);
    for (const i of fn.prog.labels.values()) if (i <= code.length) entries[i] = 1;
    for (const c of code) {
      if (c.target >= 0 && c.target <= code.length) entries[c.target] = 1;
      if (c.rpc >= 0 && c.rpc <= code.length) entries[c.rpc] = 1;
      for (const b of c.brxTargets) if (b >= 0 && b <= code.length) entries[b] = 1;
    }
    let live: Liveness | undefined;
    const liveness = (): Liveness => live ??= new Liveness(fn, fn.template.byteLength >>> 8);
    const consts = constantSlots(fn);
    // made now, not on first use: made inside the optimized hot loop, they would have no type feedback there
    const single = code.map((c, pc) => (plain(c) ? Block.single(code, consts, pc) : null));
    t = { fn, at: new Array<Block | null | undefined>(code.length).fill(undefined), entries, consts, midStarts: new Uint8Array(code.length), liveness, single };
    tables.set(fn, t);
  }
  last = t;
  return t;
}

function plain(c: CInstr): boolean {
  return c.ctl === Ctl.None && c.exec !== undefined && !c.readsClock;
}

/** Turns that must start inside a run at the same instruction before a block starts there too. */
export const SUFFIX_AFTER = 16;

/**
 * The block starting at `pc` (made now if not yet looked at), or null. Inside a longer run (the
 * instruction before is plain and falls through to `pc`) a warp starts only when its last turn
 * ended there: it does the rest one instruction at a time until turns have started at `pc`
 * SUFFIX_AFTER times, rather than generating (and V8 compiling) a copy of every suffix a turn
 * happens to start in once. (runWarp does not look here while it steps through a block that did
 * not fit its budget.)
 */
export function blockAt(t: BlockTable, pc: number): Block | null {
  const have = t.at[pc];
  if (have !== undefined) return have;
  const code = t.fn.code;
  if (pc > 0 && t.entries[pc] === 0 && plain(code[pc - 1]!) && ++t.midStarts[pc]! < SUFFIX_AFTER) return null;
  let len = 0;
  while (pc + len < code.length && plain(code[pc + len]!) && (len === 0 || t.entries[pc + len] === 0)) len++;
  let b: Block | null = null;
  if (len >= MIN_LEN) {
    b = new Block(code, t.consts, pc, len, t.liveness);
  }
  t.at[pc] = b;
  return b;
}

/**
 * The plain instruction at `pc` as a block of one (null for any other), for the hot loop to run an
 * instruction it does not run in a block (a block that does not fit the turn, a turn resumed
 * inside one) through the same call as blocks: in a short kernel that path is first taken when a
 * recording's checkpoint splits a turn, and a path of its own then had no type feedback in the
 * optimized hot loop, which deoptimized it. No code is generated for it (single); all are made
 * with the table, so that this lookup has no branch that runs only once.
 */
export function singleAt(t: BlockTable, pc: number): Block | null {
  return t.single[pc]!;
}

/**
 * Instruction `c` (plain) as a BlockRun: its guard, its lane loop, the thread-instructions, as the
 * hot loop's per-instruction path does them; BLOCK_PROGRESS set as a block leaves it should it fault.
 */
function single(c: CInstr): BlockRun {
  const exec = c.exec!, guard = c.guard, neg = c.guardNeg;
  return (w, mask) => {
    const m = guard >= 0 ? guardOf(w.i32, guard, mask, neg) : mask;
    const t = popc32(m);
    BLOCK_PROGRESS.k = 0;
    BLOCK_PROGRESS.t = t;
    if (m !== 0) exec(w, m);
    return t;
  };
}

/** The lanes of `m` whose guard predicate (at register slot `base`) holds, negated by `neg`. */
function guardOf(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}
