/**
 * A fault report's call stack after runaway recursion: thousands of identical frames are one line
 * with their count (a stack overflow report stays readable); frames that differ keep their order.
 */
import { formatFault } from '../../src/engine/fault.js';
import type { FaultReport } from '../../src/exec/machine.js';

const frame = (fn: string, pc: number): FaultReport['callers'][number] => ({ function: fn, file: undefined, line: 0, pc });
function report(callers: FaultReport['callers']): FaultReport {
  return { kind: 'stack-overflow', message: 'call stack overflow', block: [0, 0, 0], thread: [0, 0, 0], warp: 0, lane: 0, function: 'rec',
    pc: 12, ptx: 'call.uni rec;', file: undefined, line: 0, space: undefined, address: undefined, callers };
}
const callerLines = (f: FaultReport): string[] => formatFault(f).split('\n').filter((l) => l.startsWith('  called from'));

test('5000 frames of the same call are one line that says how many', () => {
  const f = report([...Array.from({ length: 5000 }, () => frame('rec', 12)), frame('deep', 4)]);
  expect(callerLines(f)).toEqual(['  called from instruction 12 in rec (5000 times over)', '  called from instruction 4 in deep']);
});

test('two equal frames stay two lines; different frames are never merged', () => {
  const f = report([frame('a', 1), frame('a', 1), frame('b', 2), frame('a', 1)]);
  expect(callerLines(f)).toEqual(['  called from instruction 1 in a', '  called from instruction 1 in a', '  called from instruction 2 in b', '  called from instruction 1 in a']);
});
