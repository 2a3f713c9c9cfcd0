/**
 * Initializers on `.shared` and `.local` variables. The ISA 1.1 text lets every declaration carry
 * one (5.3.5 Initializers: "All declarations may specify an initial value for the variable being
 * declared", with the example `.shared .f16 blur_kernel[][] = {...}`, and "Initializers for
 * thread-private memory all initialize their variables to the same value. There is no syntax for
 * per-thread initializers."), although its Table 5 marks both spaces "Initializable: No". ISA 1.x
 * modules get 5.3.5's meaning: a .shared variable holds its value when each CTA starts, a .local
 * one in every thread each time its function is entered (module-scope: when the thread starts).
 * From PTX 2.0 on they are refused, as ptxas 13 refuses them ("No initial value is allowed for
 * 'x' in this state space"); accepting them silently would leave the memory zero.
 */
import type { VarDecl } from './ast.js';

/** Whether a module of this `.version` is ISA 1.x. */
export function isIsa1(version: string | undefined): boolean {
  return version !== undefined && version.startsWith('1.');
}

/** Why `d`'s initializer is refused in a module of this version, or undefined when it stands. */
export function spaceInitError(d: VarDecl, version: string | undefined): string | undefined {
  if (d.init === undefined || (d.space !== 'shared' && d.space !== 'local') || isIsa1(version)) return undefined;
  return `.${d.space} variables cannot have an initializer`;
}
