/**
 * The engine's one map between state spaces and the generic-address windows the machine puts
 * them in (the high word of a generic address, exec/memory.ts): both directions here, so the
 * debugger does not spell the map out at each use.
 */
import { CONST_HI, GLOBAL_HI, LOCAL_HI, PARAM_HI, SHARED_HI } from '../exec/memory.js';
import type { SpaceName } from './types.js';

type Windowed = Exclude<SpaceName, 'generic'>;

const WINDOW: Readonly<Record<Windowed, number>> = { global: GLOBAL_HI, shared: SHARED_HI, local: LOCAL_HI, const: CONST_HI, param: PARAM_HI };

/** The generic window (high word) of a state space. */
export function windowOf(space: Windowed): number {
  return WINDOW[space];
}

/** The state space whose window is `hi`, if any. */
export function spaceOfWindow(hi: number): Windowed | undefined {
  for (const s of Object.keys(WINDOW) as Windowed[]) if (WINDOW[s] === hi) return s;
  return undefined;
}
