/**
 * Type and rounding modifiers of an instruction, and the typed views generated lane loops read registers through.
 */
import * as fp from '../float/index.js';
import { typeSize } from '../../ptx/types.js';
import type { View } from '../codegen.js';

export const SIGNED = new Set(['s8', 's16', 's32', 's64']);

export function norm(t: string, x: string): string {
  switch (t) {
    case 's8': return `(${x} << 24 >> 24)`;
    case 's16': return `(${x} << 16 >> 16)`;
    case 'u8': case 'b8': return `(${x} & 255)`;
    case 'u16': case 'b16': return `(${x} & 65535)`;
    default: return x;
  }
}

export function intView(t: string): View {
  const s = typeSize(t);
  if (s === 8) return 'l';
  return SIGNED.has(t) ? 'i' : 'u';
}

export function viewOf(t: string): View {
  if (t === 'f32') return 'f';
  if (t === 'f64') return 'd';
  if (t === 'pred') return 'p';
  return intView(t);
}

export function roundMod(mods: readonly string[]): fp.Rnd {
  for (const m of mods) {
    if (m === 'rn' || m === 'rni') return fp.RN;
    if (m === 'rz' || m === 'rzi') return fp.RZ;
    if (m === 'rm' || m === 'rmi') return fp.RM;
    if (m === 'rp' || m === 'rpi') return fp.RP;
  }
  return fp.RN;
}

export function typeMod(mods: readonly string[]): string {
  for (let i = mods.length - 1; i >= 0; i--) if (typeSize(mods[i]!) > 0) return mods[i]!;
  return 'b32';
}
