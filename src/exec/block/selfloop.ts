/**
 * A block that branches back to its own start (`L: ALU instructions; @%p bra L;`), run lane by
 * lane: each lane does a whole turn of the loop before the next lane starts, so the loop's values
 * stay in registers of the machine (locals) and the hot loop dispatches once per turn instead of
 * twice per iteration. Only ALU instructions (generated lane loops: they touch only their lane's
 * registers and cannot fault), so the order of the lanes cannot show, and only while the branch
 * is uniform: every lane must take it the same number of times. The first lanes decide the count;
 * a lane that disagrees restores the written registers of every lane from a copy taken at the
 * start and the loop reports 0, so the warp runs as before (block, branch, divergence). Recorded,
 * runWarp logs each iteration as the per-block path does (one run of the block and its branch),
 * after the loop. Lanes run two at a time (the last alone when their number is odd), interleaved in one loop: a loop
 * is mostly one chain of dependent arithmetic per lane, and two independent chains keep the
 * processor busy while each waits (four at a time made V8 box float values and take several
 * times as long to compile).
 *
 * A call covers the warp's whole turn, as the per-instruction path would spend it: a head (the
 * rest of an iteration the last turn ended inside, from instruction k0, and its branch), whole
 * iterations, and a tail (the first instructions of the next iteration, where the turn's budget
 * ends inside it). Head and tail run over all lanes as generated blocks (edgeRunner), the head
 * before the lanes' iterations, the tail after the check that they agree.
 * What a stop can see is exact: the register file then holds what the per-instruction path
 * leaves, every register written back at every instruction.
 */
import { boundLoopOf, type BoundLoop } from '../codegen.js';
import type { CInstr } from '../compiled.js';
import type { Warp } from '../state.js';
import type { Constants } from './constants.js';
import { type BlockRun, dumpBlock, generateBlock } from './gen.js';
import { aluStep, guardTest, LaneCache, type Promoted } from './lanes.js';
import type { View } from '../codegen.js';
import type { Block } from './table.js';

/**
 * Runs the lanes of `m`, from instruction `k0` of the body (the branch when k0 = len), for
 * `budget` warp-steps or until they leave the loop; returns the warp-steps done, 0 when the lanes
 * disagreed (nothing changed). SELF_LOOP.t: thread-instructions done, the branches included;
 * SELF_LOOP.exit: whether the last iteration fell through; SELF_LOOP.head: steps of the head (to
 * the branch, included; 0 from the start); SELF_LOOP.n: iterations begun at the
 * loop's start after the head; SELF_LOOP.tail: instructions of the tail (0 when it left).
 * The caller gives at least two iterations' worth of budget.
 */
export type LoopRun = (w: Warp, m: number, k0: number, budget: number) => number;

/** `runs` and `refused` count calls that ran iterations and calls whose lanes disagreed (for tests). */
export const SELF_LOOP = { t: 0, exit: false, head: 0, n: 0, tail: 0, runs: 0, refused: 0 };

/** Register words of the slots the loop writes, copied before it runs (one loop runs at a time per thread). */
const SNAP = new Int32Array(64 * 256);
const MAX_SLOTS = 64;
/** The active lanes of the warp, in order (one loop runs at a time per thread). */
const LANES = new Int32Array(32);

type Factory = (K: unknown, XS: readonly unknown[], OUT: typeof SELF_LOOP, SNAP: Int32Array, POPC: (x: number) => number, L: Int32Array, EDGE: EdgeRun) => LoopRun;

function popc(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * The registers the loop can hold in locals for a lane's whole run: slots it accesses only as
 * 32-bit integers or predicates, or only as f32 (not constants), when no instruction's text reaches the register
 * file itself (a body naming I, U, F or G reads a slot the views do not show).
 */
function promotable(code: readonly CInstr[], p: number, len: number, loops: readonly BoundLoop[], bra: CInstr, consts: Constants): Promoted {
  const views = new Map<number, Set<View>>();
  const see = (base: number, v: View): void => {
    if (v === 'n') return;
    let s = views.get(base);
    if (s === undefined) views.set(base, s = new Set());
    s.add(v);
  };
  for (let k = 0; k < len; k++) {
    const b = loops[k]!, ins = code[p + k]!;
    if (/\b[IUFG]\[/.test(b.spec.body)) return new Map();
    b.spec.srcs.forEach((v, i) => see([b.A, b.B, b.C][i]!, v));
    see(b.D, b.spec.dst);
    see(b.E, b.spec.dst2);
    if (ins.guard >= 0) see(ins.guard, 'p');
  }
  see(bra.guard, 'p');
  const out = new Map<number, { x: string; f32: boolean }>();
  for (const [base, vs] of views) {
    if (consts.has(base) || (base & 63) !== 0) continue;
    if ([...vs].every((v) => v === 'i' || v === 'u' || v === 'p')) out.set(base, { x: `$p${out.size}`, f32: false });
    else if ([...vs].every((v) => v === 'f')) out.set(base, { x: `$p${out.size}`, f32: true });
  }
  return out;
}


/** What the texts of one loop share while it is generated. */
interface Parts {
  readonly code: readonly CInstr[];
  readonly consts: Constants;
  readonly p: number;
  readonly len: number;
  readonly bra: CInstr;
  readonly loops: readonly BoundLoop[];
  readonly xs: unknown[];
  readonly promoted: Promoted;
  /** Slot bases the loop writes (stored back from locals, saved and restored). */
  readonly slots: ReadonlySet<number>;
}

/**
 * Instructions [from, to) of the body for the lanes of `m`, one after another, each by its own
 * lane loop as the per-instruction path runs them. Returns the thread-instructions done.
 */
function edge(w: Warp, m: number, body: readonly CInstr[], from: number, to: number): number {
  let t = 0;
  for (let k = from; k < to; k++) {
    const ins = body[k]!;
    const mk = ins.guard >= 0 ? laneGuard(w.i32, ins.guard, m, ins.guardNeg) : m;
    t += popc(mk);
    if (mk !== 0) ins.exec!(w, mk);
  }
  return t;
}

/** Runs instructions [from, to) of a loop's body for the lanes of `m`; returns the thread-instructions done. */
type EdgeRun = (w: Warp, m: number, from: number, to: number) => number;

/**
 * The head and tail of a loop's turns (lanes are independent, so every lane's head can run
 * before the first lane's iterations): each range of the body as one generated block for all
 * lanes (gen.ts), made on first use; a turn starts at one of a few instructions, so a loop has a
 * few of them. Where a block's text does not compile, the instructions' own lane loops.
 */
function edgeRunner(code: readonly CInstr[], consts: Constants, p: number, len: number): EdgeRun {
  const body = code.slice(p, p + len);
  const made: (BlockRun | undefined)[] = [];
  const make = (from: number, to: number): BlockRun => {
    try {
      return generateBlock(code, consts, p + from, to - from, true);
    } catch (e) {
      if (!(e instanceof SyntaxError || e instanceof ReferenceError)) throw e;
      return (w, m) => edge(w, m, body, from, to);
    }
  };
  return (w, m, from, to) => {
    if (from >= to) return 0;
    const k = from * (len + 1) + to;
    return (made[k] ??= make(from, to))(w, m);
  };
}

/** The lanes of `m` whose guard predicate (at register slot `base`) holds, negated by `neg` (runWarp's guardMask). */
function laneGuard(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) !== 0 && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}

/** One lane's iteration with its registers in the locals of `pr`, and the declarations of the locals it caches values in. */
function laneText(P: Parts, pr: Promoted): { text: string; decls: string } {
  const cache = new LaneCache(P.consts);
  const text = Array.from({ length: P.len }, (_, k) => aluStep(P.code[P.p + k]!, P.loops[k]!, cache, P.xs, pr)).join('\n');
  return { text, decls: cache.decls.length ? `let ${cache.decls.map((v) => `${v} = 0`).join(', ')};` : '' };
}

/** The promoted registers of the lane of a group numbered `v`: locals of its own (`$p` becomes `$p<v>_`). */
function variant(P: Parts, v: number): Promoted {
  return new Map([...P.promoted].map(([base, x]) => [base, { ...x, x: x.x.replace('$p', `$p${v}_`) }]));
}

const load = (pr: Promoted, o: string): string => [...pr].map(([base, { x, f32 }]) => `let ${x} = ${f32 ? 'F' : 'I'}[${base} + ${o}];`).join(' ');

function store(P: Parts, pr: Promoted, o: string): string {
  return [...pr].filter(([base]) => P.slots.has(base)).map(([base, { x, f32 }]) => `${f32 ? 'F' : 'I'}[${base} + ${o}] = ${x};`).join(' ');
}

/**
 * Where slot `s` of the written ones is in SNAP: the registers from the lowest written slot to the
 * end of the highest are copied as one range when it fits (one copy of memory per call, and
 * the slots are mostly near each other), else each slot alone.
 */
function snapAt(slots: ReadonlySet<number>, s: number): number {
  const lo = Math.min(...slots), hi = Math.max(...slots) + 64;
  return hi - lo <= SNAP.length ? s - lo : 64 * [...slots].indexOf(s);
}

/** The statements saving the written slots in SNAP (see snapAt). */
function saveText(slots: ReadonlySet<number>): string {
  if (slots.size === 0) return '';
  const lo = Math.min(...slots), hi = Math.max(...slots) + 64;
  if (hi - lo <= SNAP.length) return `$SNAP.set(I.subarray(${lo}, ${hi}));`;
  // word by word: a subarray per slot would be objects made at every call
  return [...slots].map((s) => `for (let i = 0; i < 64; i++) $SNAP[${snapAt(slots, s)} + i] = I[${s} + i];`).join(' ');
}

/** The statements putting every written slot back as it was at the call's start, and leaving with 0. */
function refuse(P: Parts): string {
  const restore = [...P.slots].map((s) => `I.set($SNAP.subarray(${snapAt(P.slots, s)}, ${snapAt(P.slots, s) + 64}), ${s});`).join(' ');
  return `{ ${restore} $OUT.refused++; return 0; }`;
}

/**
 * `g` lanes ($L[i] ... $L[i + g - 1]) at once: their iterations interleaved, then the check
 * that each took the branch as the first lanes did (the trip count `n` and whether they left,
 * `out`; the first group sets them, up to what the budget holds). Lane j's offset and index are o<j> and l<j>.
 */
function groupText(P: Parts, g: number): string {
  const js = Array.from({ length: g }, (_, j) => j);
  const prs = js.map((j) => variant(P, j));
  const bodies = js.map((j) => laneText(P, prs[j]!));
  const take = (j: number): string => guardTest(P.bra, prs[j]!);
  const headTake = (j: number): string => guardTest(P.bra).replace('+ o]', `+ o${j}]`);
  return `{
    ${js.map((j) => `const l${j} = $L[i + ${j}], o${j} = l${j} << 1;`).join(' ')}
    ${js.map((j) => `let go${j} = ${headTake(j)} || k0 === 0;`).join(' ')}
    ${js.map((j) => load(prs[j]!, `o${j}`)).join(' ')}
    let it = 0;
    const lim = n < 0 ? nmax : n;
    while (${js.map((j) => `go${j}`).join(' && ')} && it < lim) {
      ${js.map((j) => `{ const o = o${j}, l = l${j}; ${bodies[j]!.decls} ${bodies[j]!.text} }`).join('\n')}
      it++;
      ${js.map((j) => `go${j} = ${take(j)};`).join(' ')}
    }
    ${js.map((j) => store(P, prs[j]!, `o${j}`)).join(' ')}
    // the first group sets the trip count: its lanes must agree with each other
    if (n < 0 && ${js.map((j) => `go${j} === go0`).join(' && ')}) { n = it; out = !go0; }
    if (it !== n || ${js.map((j) => `out === go${j}`).join(' || ')}) ${refuse(P)}
  }`;
}

/** One lane ($L[i]): the first sets the trip count `n` (up to what the budget holds) and `out`; later ones must match them. */
function singleText(P: Parts): string {
  const body = laneText(P, P.promoted);
  return `{
    const l = $L[i], o = l << 1;
    const lim = n < 0 ? nmax : n;
    let go = ${guardTest(P.bra)} || k0 === 0;
    ${load(P.promoted, 'o')}
    let it = 0;
    while (go && it < lim) {
      ${body.decls}
      ${body.text}
      it++;
      go = ${guardTest(P.bra, P.promoted)};
    }
    ${store(P, P.promoted, 'o')}
    if (n < 0) { n = it; out = !go; }
    else if (it !== n || out === go) ${refuse(P)}
  }`;
}

/** The loop of the block [p, p + len) closed by the branch at p + len, or undefined when it is not one this can run. */
export function generateSelfLoop(code: readonly CInstr[], consts: Constants, p: number, len: number, bra: CInstr): LoopRun | undefined {
  if (bra.target !== p || bra.guard < 0) return undefined;
  const loops: BoundLoop[] = [];
  for (let k = 0; k < len; k++) {
    const b = boundLoopOf(code[p + k]!.exec);
    if (b === undefined || (loops[0]?.K !== undefined && b.K !== undefined && b.K !== loops[0].K)) return undefined;
    loops.push(b);
  }
  const K = loops.find((b) => b.K !== undefined)?.K;
  const slots = new Set<number>();
  for (const b of loops) {
    if (b.spec.dst !== 'n') slots.add(b.D - (b.D & 63));
    if (b.spec.dst2 !== 'n') slots.add(b.E - (b.E & 63));
  }
  // a 64-bit value's high word is in the same slot; an f64 of a slot too
  if (slots.size > MAX_SLOTS) return undefined;
  const P: Parts = { code, consts, p, len, bra, loops, xs: [], promoted: promotable(code, p, len, loops, bra, consts), slots };
  let plain = 0;
  for (let k = 0; k < len; k++) if (code[p + k]!.guard < 0) plain++;
  const save = saveText(slots);
  const len1 = len + 1;
  const src = `
    return function loop(w, m, k0, B) {
      const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
      ${save}
      // the turn: a head of len1 - k0 steps (from k0 to the branch), whole iterations, a tail of r
      // (no branch on k0 here or below: a path first taken in optimized code deopts it, and
      // turns start inside the body only from a warp's second turn on)
      const head = (${len1} - k0) % ${len1};
      const nmax = ((B - head) / ${len1}) | 0;
      const r = B - head - nmax * ${len1};
      let nl = 0;
      for (let l = 0; l < 32; l++) if (((m >>> l) & 1) !== 0) $L[nl++] = l;
      // the head of every lane first (each lane's branch then reads its register file)
      let $t = $EDGE(w, m, head > 0 ? k0 : ${len}, ${len}), n = -1, out = false, i = 0;
      while (i < nl) {
        // independent lanes together: their chains of dependent arithmetic overlap
        if (nl - i >= 2) { ${groupText(P, 2)} i += 2; continue; }
        ${singleText(P)}
        i++;
      }
      // every operation runs on each call (a branch first taken later, in optimized code, deopts it: the exit comes on a warp's last turn)
      const o1 = out ? 1 : 0, tail = out ? 0 : r;
      $t += $EDGE(w, m, 0, tail);
      // the head's and tail's instructions are in $t; the head's branch is taken unless it left
      const plainDone = (head > 0 ? 1 : 0) + n * ${plain + 1} - o1;
      $OUT.t = $t + plainDone * $POPC(m);
      $OUT.exit = out;
      $OUT.head = head;
      $OUT.n = n;
      $OUT.tail = tail;
      $OUT.runs++;
      return head + n * ${len1} + tail;
    };`;
  dumpBlock(p, src);
  return (new Function('K', '$XS', '$OUT', '$SNAP', '$POPC', '$L', '$EDGE', src) as Factory)(K, P.xs, SELF_LOOP, SNAP, popc, LANES, edgeRunner(code, consts, p, len));
}

/** Per block table: the self-loop block whose body or branch holds each pc, once its loop is made (runWarp looks here first). */
const covers = new WeakMap<object, (Block | undefined)[]>();
let lastTable: object | undefined = undefined;
let lastCover: (Block | undefined)[] = [];

/** The self-loops of the function of block table `t`, by every pc of their body and branch. */
export function loopCover(t: object): (Block | undefined)[] {
  if (t === lastTable) return lastCover;
  let c = covers.get(t);
  if (c === undefined) covers.set(t, c = []);
  lastTable = t;
  return lastCover = c;
}

/** Note self-loop block `b` in `cover`: a turn starting inside its body (where the last one ended) runs it from there. */
export function coverLoop(cover: (Block | undefined)[], b: Block): void {
  for (let k = 0; k <= b.len; k++) cover[b.pc + k] ??= b;
}
