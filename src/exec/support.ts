/**
 * What the interpreter cannot execute, found without running: every function goes through the
 * same instruction selection a launch uses, and each instruction it refuses becomes a located
 * diagnostic. `check` uses this so that it never passes a file the interpreter would stop on.
 */
import type { Diagnostic } from '../ptx/diagnostics.js';
import type { ProgFunction, Program } from '../ptx/resolve.js';
import { compileFunction, type Layout } from './compile.js';
import { Ctl } from './compiled.js';
import { selectOnly } from './compile/operands.js';

export function unsupportedInstructions(program: Program): Diagnostic[] {
  const check = supportCheck(program);
  const out: Diagnostic[] = [];
  for (const fn of program.functions.values()) check(fn, out);
  return out;
}

/** The check of one function at a time (`check` sweeps a module's functions without keeping them). */
export function supportCheck(program: Program): (fn: ProgFunction, out: Diagnostic[]) => void {
  // every function a launch can take the address of: bodies, then prototypes (the machine's ids)
  const ids = new Map([...program.bodies.map((d) => d.name), ...program.prototypes.keys()].map((name, i) => [name, i] as const));
  // Addresses do not change what can be selected; any value will do.
  const layout: Layout = { addressOf: () => ({ lo: 0, hi: 0 }), functionAddress: (name) => ids.get(name) ?? -1, target: program.module.target, version: program.module.version };
  return (fn, out) => {
    // nothing here runs: lane loops are checked, not instantiated
    for (const c of selectOnly(() => compileFunction(fn, layout, false)).code) {
      if (c.ctl === Ctl.Unsupported) {
        out.push({ severity: 'error', message: `not supported by the interpreter: ${c.note || c.src.opcode}`, span: c.src.src.opSpan });
      }
    }
  };
}
