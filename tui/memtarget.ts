/**
 * What the Memory pane can be pointed at: `[space] target` where target is a number, a PTX
 * register (%rd4: its value), a PTX symbol, or a source expression (an lvalue's address; `*p`:
 * where p points).
 */
import type { SpaceName } from '#engine';
import type { Model } from './model.js';
import { addressOf } from './variables.js';

const SPACES: readonly SpaceName[] = ['global', 'shared', 'local', 'const', 'param', 'generic'];

export type MemoryTarget = { readonly space: SpaceName; readonly address: bigint; readonly label: string } | { readonly error: string };

export function resolveTarget(model: Model, text: string): MemoryTarget {
  const words = text.trim().split(/\s+/);
  let space: SpaceName | undefined;
  if (SPACES.includes(words[0] as SpaceName) && words.length > 1) space = words.shift() as SpaceName;
  const target = words.join(' ');
  const engine = model.engine;
  let address: bigint | undefined;
  if (/^(0x[0-9a-f]+|\d+)$/i.test(target)) address = BigInt(target);
  else if (/^%\w+$/.test(target)) address = engine.registerBits(target);
  if (address === undefined) {
    const sym = engine.symbolAddress(target.replace(/^&/, ''));
    if (sym) { address = sym.address; space ??= sym.space; }
  }
  if (address === undefined) {
    const loc = addressOf(model, target.replace(/^&/, ''));
    if (loc) { address = loc.address; space ??= loc.space; }
  }
  if (address === undefined) return { error: `memory: ${target} is not in memory (or not known here)` };
  return { space: space ?? 'generic', address, label: target };
}
