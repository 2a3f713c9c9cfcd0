/**
 * A block that branches back to its own start (`L: ALU instructions; @%p bra L;`), run lane by
 * lane: each lane does up to `max` iterations of the whole loop before the next lane starts, so
 * the loop's values stay in registers of the machine (locals) and the hot loop dispatches once per
 * turn instead of twice per iteration. Only ALU instructions (generated lane loops: they touch
 * only their lane's registers and cannot fault), so the order of the lanes cannot show, and only
 * while the branch is uniform: every lane must take it the same number of times. The first lane
 * decides the count; a lane that disagrees restores the written registers of every lane from a
 * copy taken at the start and the loop reports 0, so the warp runs as before (block, branch,
 * divergence). Recorded, runWarp logs each iteration as the per-block path does (one run of the
 * block and its branch), after the loop. After the first lane, lanes run two at a time,
 * interleaved in one loop: a loop is mostly one chain of dependent arithmetic per lane, and two
 * independent chains keep the processor busy while each waits.
 *
 * What a stop can see is exact: a turn ends after whole iterations (the caller gives `max` from
 * its budget), and the register file then holds what the per-instruction path leaves, every
 * register written back at every instruction.
 */
import { boundLoopOf, type BoundLoop } from '../codegen.js';
import type { CInstr } from '../compiled.js';
import type { Warp } from '../state.js';
import type { Constants } from './constants.js';
import { dumpBlock } from './gen.js';
import { aluStep, guardTest, LaneCache, type Promoted } from './lanes.js';
import type { View } from '../codegen.js';

/**
 * Runs iterations of the loop for the lanes of `m` (at most `max` each); returns how many, 0 when
 * the lanes disagreed (nothing changed). SELF_LOOP.t: thread-instructions done, the branches
 * included; SELF_LOOP.exit: whether the last iteration fell through.
 */
export type LoopRun = (w: Warp, m: number, max: number) => number;

/** `runs` and `refused` count calls that ran iterations and calls whose lanes disagreed (for tests). */
export const SELF_LOOP = { t: 0, exit: false, runs: 0, refused: 0 };

/** Register words of the slots the loop writes, copied before it runs (one loop runs at a time per thread). */
const SNAP = new Int32Array(64 * 64);
const MAX_SLOTS = 64;

type Factory = (K: unknown, XS: readonly unknown[], OUT: typeof SELF_LOOP, SNAP: Int32Array, POPC: (x: number) => number) => LoopRun;

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
  const xs: unknown[] = [];
  const promoted = promotable(code, p, len, loops, bra, consts);
  // the second lane of a pair holds its registers in locals of its own ($q for $p)
  const promoted2: Promoted = new Map([...promoted].map(([base, v]) => [base, { ...v, x: v.x.replace('$p', '$q') }]));
  const lane = (pr: Promoted): { text: string; decls: string } => {
    const cache = new LaneCache(consts);
    const text = Array.from({ length: len }, (_, k) => aluStep(code[p + k]!, loops[k]!, cache, xs, pr)).join('\n');
    return { text, decls: cache.decls.length ? `let ${cache.decls.map((v) => `${v} = 0`).join(', ')};` : '' };
  };
  const one = lane(promoted), two = lane(promoted2);
  let plain = 0;
  for (let k = 0; k < len; k++) if (code[p + k]!.guard < 0) plain++;
  const load = (pr: Promoted, o: string): string => [...pr].map(([base, { x, f32 }]) => `let ${x} = ${f32 ? 'F' : 'I'}[${base} + ${o}];`).join(' ');
  const store = (pr: Promoted, o: string): string => [...pr].filter(([base]) => slots.has(base)).map(([base, { x, f32 }]) => `${f32 ? 'F' : 'I'}[${base} + ${o}] = ${x};`).join(' ');
  const take = guardTest(bra, promoted), take2 = guardTest(bra, promoted2).replace('+ o]', '+ o2]');
  // word by word: a subarray per slot would be an object made at every call (one per turn of the loop)
  const save = [...slots].map((s, j) => `for (let i = 0; i < 64; i++) $SNAP[${64 * j} + i] = I[${s} + i];`).join(' ');
  const restore = [...slots].map((s, j) => `I.set($SNAP.subarray(${64 * j}, ${64 * j + 64}), ${s});`).join(' ');
  const src = `
    return function loop(w, m, max) {
      const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
      ${save}
      let $t = 0, n = -1, out = false;
      for (let l = 0; l < 32; l++) {
        if (((m >>> l) & 1) === 0) continue;
        let l2 = l + 1;
        while (l2 < 32 && ((m >>> l2) & 1) === 0) l2++;
        if (n >= 0 && l2 < 32) {
          // two lanes at a time once the trip count is known: their chains of dependent
          // arithmetic are independent, so the processor overlaps them
          const o = l << 1, o2 = l2 << 1;
          let it = 0, go = true, go2 = true;
          ${load(promoted, 'o')} ${load(promoted2, 'o2')}
          while (go && go2 && it < n) {
            { ${one.decls} ${one.text} }
            { const o = o2, l = l2; ${two.decls} ${two.text} }
            it++;
            go = ${take}; go2 = ${take2};
          }
          ${store(promoted, 'o')} ${store(promoted2, 'o2')}
          if (it !== n || out === go || out === go2) { ${restore} $OUT.refused++; return 0; }
          l = l2;
          continue;
        }
        const o = l << 1;
        const lim = n < 0 ? max : n;
        let it = 0, go = true;
        ${load(promoted, 'o')}
        while (go && it < lim) {
          ${one.decls}
          ${one.text}
          it++;
          go = ${take};
        }
        ${store(promoted, 'o')}
        if (n < 0) { n = it; out = !go; }
        else if (it !== n || out === go) { ${restore} $OUT.refused++; return 0; }
      }
      // every operation runs on each call (a branch first taken later, in optimized code, deopts it: the exit comes on a warp's last turn)
      const pm = $POPC(m);
      $OUT.t = $t + (n * ${plain + 1} - (out ? 1 : 0)) * pm;
      $OUT.exit = out;
      $OUT.runs++;
      return n;
    };`;
  dumpBlock(p, src);
  return (new Function('K', '$XS', '$OUT', '$SNAP', '$POPC', src) as Factory)(K, xs, SELF_LOOP, SNAP, popc);
}
