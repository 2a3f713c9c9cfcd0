/**
 * The opcode table (src/ptx/instructions.ts) against the PTX ISA's operand lists: which
 * instructions write their first operand, what a call writes, what ends a block.
 */
import { loadPtx } from '../../src/ptx/index.js';
import { factsOf, INSTRUCTIONS, isClockSpecial, readsClock, writtenRegisters } from '../../src/ptx/instructions.js';
import { OPCODES } from '../../src/ptx/opcodes.js';

const PTX = `
.version 7.0
.target sm_80
.address_size 64
.func (.param .b32 r) f(.param .b32 a) { ret; }
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<9>; .reg .pred %p<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
  st.global.u32 [%rd1], %r1;
  setp.lt.s32 %p1|%p2, %r1, %r2;
  bar.sync %r5;
  red.global.add.u32 [%rd1], %r2;
  mov.u32 %r6, %clock;
  { .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %r1;
    call (pr), f, (pa); ld.param.b32 %r7, [pr]; }
  exit;
}`;

describe('instruction facts', () => {
  const loaded = loadPtx(PTX, 'facts.ptx');
  const k = loaded.program!.functions.get('k')!;
  const at = (op: string): (typeof k.instrs)[number] => k.instrs.find((i) => i.opcode === op && (op !== 'ld' || i.operands[0]?.kind === 'vec'))!;

  test('every opcode the parser accepts has facts', () => {
    expect([...OPCODES].every((op) => INSTRUCTIONS.has(op))).toBe(true);
  });

  test('destinations per the ISA operand lists', () => {
    expect(writtenRegisters(at('ld'))).toEqual(['%r1', '%r2', '%r3', '%r4']);
    expect(writtenRegisters(at('st'))).toEqual([]);
    expect(writtenRegisters(at('setp'))).toEqual(['%p1', '%p2']);
    expect(writtenRegisters(at('bar'))).toEqual([]); // bar.sync a: a is the barrier id, read
    expect(writtenRegisters(at('red'))).toEqual([]);
    expect(writtenRegisters(at('mov'))).toEqual(['%r6']);
    expect(readsClock(at('mov'))).toBe(true);
    expect(readsClock(at('setp'))).toBe(false);
  });

  test('control and memory', () => {
    expect(['bra', 'brx', 'ret', 'exit', 'trap'].every((op) => factsOf(op).terminator)).toBe(true);
    expect(factsOf('call').terminator).toBe(false);
    expect(factsOf('call').control).toBe('call');
    expect(factsOf('atom').memory).toBe('atomic');
    expect(factsOf('atom').writesDestination).toBe(true);
    expect(factsOf('red').memory).toBe('reduction');
    expect(factsOf('add').memory).toBe('none');
  });

  test('clock special registers (PTX ISA, Special Registers: %clock, %clock_hi, %clock64, %globaltimer{,_lo,_hi})', () => {
    for (const r of ['clock', '%clock_hi', 'clock64', 'globaltimer', 'globaltimer_lo', '%globaltimer_hi']) expect(isClockSpecial(r)).toBe(true);
    for (const r of ['tid', 'laneid', 'clockwise', 'pm0']) expect(isClockSpecial(r)).toBe(false);
  });
});
