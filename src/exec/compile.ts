/**
 * Instruction selection: turns each resolved PTX instruction into a pre-decoded `CInstr` whose
 * `exec` is a specialised lane loop (codegen.ts) or a hand-written loop for memory, warp-wide and
 * control instructions. Runs once per launch (addresses of variables are known then).
 *
 * The parts live in src/exec/compile/, one job each:
 *   operands.ts   operand selection (sources, destinations, binding lane loops), CompileError
 *   slots.ts      the function's register-file layout (constants, specials, scratch, initializers)
 *   modifiers.ts  type / rounding modifiers and typed register views
 *   select.ts     per-instruction dispatch to the families below; calls, barriers
 *   mov.ts, alu.ts (arithmetic/logic dispatch), int.ts (multiply, carry chain),
 *   compare.ts (setp/set), convert.ts (cvt), half.ts (f16/bf16), bits.ts (bit helpers)
 */
import type { ProgFunction, RInstruction } from '../ptx/resolve.js';
import { readsClock } from '../ptx/instructions.js';
import { GeneratedCodeError } from './codegen.js';
import { type CFunction, type CInstr, Ctl } from './compiled.js';
import { computeIpdom } from './ipdom.js';
import { CompileError, type Layout } from './compile/operands.js';
import { FnCompiler, registerInitializers } from './compile/slots.js';
import { compileInstr } from './compile/select.js';

export { CompileError, type Ctx, type Layout, K, K as runtime, bind, dst, fail, src, varAddress } from './compile/operands.js';
export { FnCompiler, initRegisters } from './compile/slots.js';

/**
 * `reconverge: false` leaves every instruction's reconvergence point unset (rpc -1): for a caller
 * that only looks at what was selected (`check`: the post-dominator analysis was a quarter of its
 * compile), never for code that runs.
 */
export function compileFunction(fn: ProgFunction, layout: Layout, reconverge = true): CFunction {
  const fc = new FnCompiler(fn, layout);
  const ipdom = reconverge ? computeIpdom(fn) : [];
  const code: CInstr[] = fn.instrs.map((ins, index) => selectInstr(fc, ins, index, ipdom[index] ?? -1));
  const regInit = registerInitializers(fn, fc);
  return { prog: fn, name: fn.name, code, template: fc.template(), specials: fc.specials, frameSize: fn.frameSize, regInit, gbase: 0 };
}

/**
 * One instruction's selection (`rpc`: its reconvergence point, -1 for none). A deliberate refusal
 * (CompileError, GeneratedCodeError) is a CInstr marked Ctl.Unsupported with the reason in `note`;
 * any other exception is a bug and surfaces. `check`'s verdict (support.ts) selects one of each
 * kind of instruction through here.
 */
export function selectInstr(fc: FnCompiler, ins: RInstruction, index: number, rpc: number): CInstr {
  const c: CInstr = {
    // the guard is set here, not assigned after: the first guarded instruction of a process
    // made the field mutable, and V8 threw away the hot loop's code that relied on it
    index, src: ins, exec: undefined, ctl: Ctl.None, guard: ins.guard ? ins.guard.reg.slot * 64 : -1, guardNeg: ins.guard?.negate ?? false,
    target: -1, rpc: -1, call: undefined, bar: undefined, sync: undefined, brxIndex: -1, brxTargets: [], note: '', readsClock: readsClock(ins),
  };
  try {
    compileInstr(fc, ins, c, rpc);
  } catch (e) {
    // Only a deliberate refusal becomes 'unsupported'; any other exception is a bug and surfaces.
    if (e instanceof CompileError || e instanceof GeneratedCodeError) {
      c.ctl = Ctl.Unsupported;
      c.note = e.message;
    } else throw e;
  }
  return c;
}
