/**
 * Lane-loop generator. Each ALU instruction runs as one function that loops over the 32 lanes of
 * a warp on the frame's typed-array register file. Writing every (op, type) loop by hand would be
 * hundreds of near-copies; instead one table entry (source views, destination view, a body
 * expression) is compiled once with `new Function` into a specialised, monomorphic loop (v86's
 * "dispatch tables generated from one instruction table"). Factories are cached by their text.
 *
 * Register layout (see regfile.ts): slot k, lane l occupies 8 bytes; its 32-bit word is
 * i32[k*64 + 2l] (the high word of a 64-bit value is the next one), its f64 is f64[k*32 + l].
 * Generated code receives slot bases pre-multiplied by 64.
 */

/** i: int32, u: uint32, f: float32, d: float64, l: 64-bit int as (lo, hi), p: predicate write, n: none. */
export type View = 'i' | 'u' | 'f' | 'd' | 'l' | 'p' | 'n';

export interface Regs {
  i32: Int32Array;
  u32: Uint32Array;
  f32: Float32Array;
  f64: Float64Array;
}

/** A generated lane loop: it reads and writes only the register file, so any Warp (a Regs) runs it as its Exec. */
export type LaneLoop = (w: Regs, m: number) => void;

type Factory = (K: unknown, D: number, A: number, B: number, C: number, E: number, X0: unknown, X1: unknown, X2: unknown) => LaneLoop;

const cache = new Map<string, Factory>();

/** Set while instructions are selected only, never run (compile/operands.ts selectOnly). */
export const selecting = { only: false };

const NAMES = ['a', 'b', 'c'] as const;

function readCode(v: View, name: string, base: string): string {
  switch (v) {
    case 'i': return `const ${name} = I[${base} + o];`;
    case 'u': return `const ${name} = U[${base} + o];`;
    case 'f': return `const ${name} = F[${base} + o];`;
    case 'd': return `const ${name} = G[(${base} >> 1) + l];`;
    case 'l': return `const ${name}lo = U[${base} + o], ${name}hi = U[${base} + o + 1];`;
    case 'p': return `const ${name} = I[${base} + o] !== 0;`;
    default: return '';
  }
}

function writeCode(v: View, name: string, base: string): string {
  switch (v) {
    case 'i': return `I[${base} + o] = ${name};`;
    case 'u': return `U[${base} + o] = ${name};`;
    case 'f': return `F[${base} + o] = ${name};`;
    case 'd': return `G[(${base} >> 1) + l] = ${name};`;
    case 'l': return `U[${base} + o] = ${name}lo; U[${base} + o + 1] = ${name}hi;`;
    case 'p': return `I[${base} + o] = ${name} ? 1 : 0;`;
    default: return '';
  }
}

/**
 * Build (or fetch) a lane-loop factory. `body` reads a/b/c (or alo/ahi...) and assigns `d`
 * (or dlo/dhi); with `dst2` it also assigns `e`, written to slot E.
 */
export function lanes(dst: View, srcs: readonly View[], body: string, dst2: View = 'n'): Factory {
  const key = `${dst}|${srcs.join('')}|${dst2}|${body}`;
  let f = cache.get(key);
  if (f) return f;
  const reads = srcs.map((v, i) => readCode(v, NAMES[i]!, 'ABC'[i]!)).join('\n');
  const src = `
    return function lane(w, m) {
      const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
      for (let l = 0; l < 32; l++) {
        if (((m >>> l) & 1) === 0) continue;
        const o = l << 1;
        ${reads}
        let d = 0, dlo = 0, dhi = 0, e = 0;
        ${body}
        ${writeCode(dst, 'd', 'D')}
        ${writeCode(dst2, 'e', 'E')}
      }
    };`;
  let raw: Factory;
  try {
    raw = new Function('K', 'D', 'A', 'B', 'C', 'E', 'X0', 'X1', 'X2', src) as Factory;
  } catch (e) {
    throw new GeneratedCodeError(`lane loop does not compile: ${(e as Error).message}`);
  }
  // each loop it makes remembers its text and constants, so the block compiler (src/exec/block/)
  // can fuse it with its neighbours into one lane loop
  const spec: LaneSpec = { dst, srcs, body, dst2 };
  const made: Factory = (K, D, A, B, C, E, X0, X1, X2) => {
    const loop = raw(K, D, A, B, C, E, X0, X1, X2);
    boundLoops.set(loop, { spec, K, D, A, B, C, E, X: [X0, X1, X2] });
    return loop;
  };
  cache.set(key, made);
  return made;
}

/** The text of a generated lane loop: what `lanes` was given. */
export interface LaneSpec {
  readonly dst: View;
  readonly srcs: readonly View[];
  readonly body: string;
  readonly dst2: View;
}

/** A generated lane loop's text and the constants it was bound to (slot bases, X0..X2). */
export interface BoundLoop {
  readonly spec: LaneSpec;
  readonly K: unknown;
  readonly D: number;
  readonly A: number;
  readonly B: number;
  readonly C: number;
  readonly E: number;
  readonly X: readonly unknown[];
}

const boundLoops = new WeakMap<LaneLoop, BoundLoop>();

/** How `loop` was generated, when `lanes` made it (undefined for a hand-written loop). */
export function boundLoopOf(loop: unknown): BoundLoop | undefined {
  return typeof loop === 'function' ? boundLoops.get(loop as LaneLoop) : undefined;
}

/** The statements that write d (and e) to their slots, as a lane loop does: shared with the block compiler. */
export function laneWrites(dst: View, dst2: View): string {
  return `${writeCode(dst, 'd', 'D')}\n${writeCode(dst2, 'e', 'E')}`;
}

/**
 * A lane loop that the generator could not produce, or that fails on its first run (a body naming
 * an operand its views do not define). Raised at load, so that such an instruction is a located
 * 'unsupported' there, never an exception in the middle of a run.
 */
export class GeneratedCodeError extends Error {}

const SCRATCH = new ArrayBuffer(1024);
const SCRATCH_REGS: Regs = {
  i32: new Int32Array(SCRATCH), u32: new Uint32Array(SCRATCH), f32: new Float32Array(SCRATCH), f64: new Float64Array(SCRATCH),
};

/**
 * Runs a factory's loop once, on every lane of a zeroed scratch slot, with the instance's constant
 * arguments. JavaScript reports an undefined name or a use before initialisation only when the code
 * runs, so this is where a bad (op, type) body shows itself. Numeric results are irrelevant.
 */
export function tryLaneLoop(f: Factory, K: unknown, X0: unknown, X1: unknown, X2: unknown): void {
  new Uint32Array(SCRATCH).fill(0);
  try {
    f(K, 0, 0, 0, 0, 0, X0, X1, X2)(SCRATCH_REGS, 0xffffffff);
  } catch (e) {
    if (e instanceof ReferenceError || e instanceof TypeError || e instanceof SyntaxError) {
      throw new GeneratedCodeError(`lane loop fails: ${e.message}`);
    }
    // anything else depends on the operand values (zeros here), not on the generated code: it is
    // the run's business, not the loader's
  }
}
