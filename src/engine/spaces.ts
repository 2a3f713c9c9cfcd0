/**
 * The engine's view of the map between state spaces and the generic-address windows the machine
 * puts them in (the high word of a generic address). The map itself lives in exec/memory.ts (the
 * engine may import exec, not the other way); this module only gives it the engine's types.
 */
import { spaceNameOfWindow, windowOfName } from '../exec/memory.js';
import type { SpaceName } from './types.js';

type Windowed = Exclude<SpaceName, 'generic'>;

/** The generic window (high word) of a state space. */
export function windowOf(space: Windowed): number {
  return windowOfName(space);
}

/** The state space whose window is `hi`, if any. */
export function spaceOfWindow(hi: number): Windowed | undefined {
  return spaceNameOfWindow(hi);
}
