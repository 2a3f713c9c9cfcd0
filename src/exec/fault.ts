/**
 * Faults raised while executing: thrown from inside an instruction (outside the hot loop's
 * normal path) and completed by the machine with the thread, block, instruction and source line.
 */
import { SPACE_NAMES, type Space } from './memory.js';

export type FaultKind =
  | 'oob' | 'misaligned' | 'invalid' | 'readonly' | 'trap' | 'assert' | 'deadlock' | 'step-limit'
  | 'unsupported' | 'stack-overflow' | 'brkpt' | 'bad-call' | 'heap';

export class Fault extends Error {
  /** Lane that faulted, when one lane is to blame. */
  lane = -1;
  space: string | undefined;
  address: bigint | undefined;

  constructor(readonly kind: FaultKind, message: string) {
    super(message);
  }

  static access(kind: 'oob' | 'misaligned' | 'invalid' | 'readonly', space: Space, lo: number, hi: number, size: number, lane: number, write: boolean): Fault {
    const addr = (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
    const what = write ? 'write' : 'read';
    const spaceName = SPACE_NAMES[space];
    const hex = '0x' + addr.toString(16);
    const text = kind === 'oob'
      ? `out-of-bounds ${spaceName} ${what} of ${size} bytes at ${hex}`
      : kind === 'misaligned'
        ? `misaligned ${spaceName} ${what} of ${size} bytes at ${hex}`
        : kind === 'readonly'
          ? `invalid ${what} to read-only ${spaceName} memory at ${hex}`
          : `invalid ${spaceName} address ${hex} (${what} of ${size} bytes): not in any memory window`;
    const f = new Fault(kind, text);
    f.lane = lane;
    f.space = spaceName;
    f.address = addr;
    return f;
  }
}
