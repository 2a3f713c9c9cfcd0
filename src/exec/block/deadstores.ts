/**
 * Dead stores of a block's lean form (gen.ts): while the block's text is generated, each store of
 * a register into the register file is marked, and each read of a register that the lane loop's
 * locals do not serve (the register file read directly: another lane loop, an instruction's own
 * closure, a guard, an address check) is noted, in program order. A marked store is then dropped
 * when its register is dead after the block (Liveness) and nothing later in the block reads it
 * from the register file: the value lived only in the loop's local. Used only where no one looks
 * at registers (an unrecorded run without probes), since a dropped store leaves the register's
 * old value where a debugger would show the new one.
 */
import type { CInstr } from '../compiled.js';
import { slotsOf } from './liveness.js';

const OPEN = '/*<S';
const CLOSE = '/*<E';

export class DeadStores {
  /** Events in program order: a store (its id) or an unserved read, by slot. */
  private readonly stores: { readonly slot: number; readonly seq: number }[] = [];
  /** Per slot: the sequence number of its last unserved read. */
  private readonly lastRead = new Map<number, number>();
  private seq = 0;

  /** `text` (the statements storing register slot base `base`), marked so finish can drop it. */
  store(base: number, text: string): string {
    if (text === '') return text;
    const id = this.stores.length;
    this.stores.push({ slot: base >> 6, seq: this.seq++ });
    return `${OPEN}${id}>*/${text}${CLOSE}${id}>*/`;
  }

  /** A read of slot base `base` from the register file. */
  read(base: number): void {
    this.lastRead.set(base >> 6, this.seq++);
  }

  /**
   * Every register `ins` names, and its guard, as read from the register file (its closure or check
   * reads them there), except the slot bases in `served` (the sources a lane loop reads through the
   * loop's locals, which note their own reads). A generated body may read more than its sources
   * A, B, C (a fourth operand through a constant slot base, a destination's other bits): those count.
   */
  readAll(ins: CInstr, served: readonly number[] = []): void {
    if (ins.guard >= 0) this.read(ins.guard);
    const slots: number[] = [];
    for (const o of ins.src.operands) slotsOf(o, slots);
    for (const slot of slots) if (!served.includes(slot << 6)) this.read(slot << 6);
  }

  /** The block's text with the dead stores removed (`liveOut`: slots live after the block, a bitset). */
  finish(text: string, liveOut: Uint32Array): string {
    const drop = this.stores.map((s) => {
      const live = (liveOut[s.slot >>> 5]! >>> (s.slot & 31)) & 1;
      const read = this.lastRead.get(s.slot);
      return live === 0 && (read === undefined || read < s.seq);
    });
    return text.replace(/\/\*<S(\d+)>\*\/([\s\S]*?)\/\*<E\1>\*\//g, (_, id: string, body: string) => (drop[Number(id)] ? '' : body));
  }
}
