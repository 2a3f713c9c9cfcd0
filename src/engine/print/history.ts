/**
 * gdb's value history: every `print` result gets the next number ($1, $2, ...), usable later as
 * `$N`, `$` (last), `$$` (the one before) and `$$N` (N back). Values are snapshots: their
 * contents are read when recorded, so moving through time later does not change `$1` (its
 * address is kept, so `&$1` and `$1[2]` still work like in gdb).
 */
import type { ThreadView } from '../types.js';
import { PrintError } from './errors.js';
import { fetchContents, type Value } from './value.js';

export class ValueHistory {
  private readonly values: Value[] = [];
  /** gdb's convenience variables set by commands: `$_` (last address examined), `$_exitcode`. */
  private readonly conv = new Map<string, Value>();

  setConvenience(name: string, v: Value): void {
    this.conv.set(name, v);
  }

  convenience(name: string): Value | undefined {
    return this.conv.get(name);
  }

  get length(): number {
    return this.values.length;
  }

  /** Store a value; returns its number. */
  record(view: ThreadView, v: Value): number {
    this.values.push(fetchContents(view, v));
    return this.values.length;
  }

  /** `$n` (1-based); `$0` is the last value like in gdb. */
  get(n: number): Value {
    if (n === 0) return this.back(0);
    const v = this.values[n - 1];
    if (!v) throw new PrintError(`History has not yet reached $${n}.`);
    return v;
  }

  /** `$` (k = 0), `$$` (k = 1), `$$k`. */
  back(k: number): Value {
    if (this.values.length === 0) throw new PrintError('History is empty.');
    const v = this.values[this.values.length - 1 - k];
    if (!v) throw new PrintError(`History does not go back to $$${k}.`);
    return v;
  }

  clear(): void {
    this.values.length = 0;
  }
}
