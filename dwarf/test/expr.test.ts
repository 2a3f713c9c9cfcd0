import { DW_OP } from '../src/index.js';
import { decodeExpression, evaluate, expressionFromBytes, formatOperations, type Operation } from '../src/index.js';
import { sleb, uleb } from './builder.js';

const enc = { addressSize: 8, format: 4 as const, version: 2 };
const ops = (bytes: number[]): Operation[] => {
  const { ops: o, error } = decodeExpression(expressionFromBytes(bytes), enc);
  expect(error).toBeUndefined();
  return o;
};

describe('expression decoding', () => {
  it('prints PTX registers by name and keeps operands', () => {
    expect(formatOperations(ops([DW_OP.regx, ...uleb(0x257231)]))).toBe('DW_OP_regx %r1');
    expect(formatOperations(ops([DW_OP.bregx, ...uleb(0x2572643132), ...sleb(-8)]))).toBe('DW_OP_bregx %rd12-8');
    expect(formatOperations(ops([DW_OP.call_frame_cfa]))).toBe('DW_OP_call_frame_cfa');
    expect(formatOperations(ops([DW_OP.fbreg, ...sleb(-104), DW_OP.nop, DW_OP.plus_uconst, 0x40])))
      .toBe('DW_OP_fbreg -104, DW_OP_nop, DW_OP_plus_uconst 0x40');
    expect(formatOperations(ops([DW_OP.addr, 0x60, 1, 0, 0, 0, 0, 0, 0]))).toBe('DW_OP_addr 0x160');
    expect(formatOperations(ops([DW_OP.lit0 + 5, DW_OP.reg0 + 3, DW_OP.breg0 + 2, 0x7f]))).toBe('DW_OP_lit5, DW_OP_reg3, DW_OP_breg2 -1');
  });
  it('stops at an unknown op with an error naming section and offset', () => {
    const { ops: o, error } = decodeExpression(expressionFromBytes([(DW_OP.lit0 + 1), 0x02], '.debug_loc'), enc);
    expect(o.map((x) => x.name)).toEqual(['DW_OP_lit1']);
    expect(error?.message).toBe('.debug_loc at offset 0x00000001: unknown DW_OP 0x2');
    const t = decodeExpression(expressionFromBytes([DW_OP.const4u, 1, 2]), enc);
    expect(t.error?.message).toContain('unexpected end of data');
  });
});

describe('expression evaluation', () => {
  it('locates a register variable', () => {
    expect(evaluate(ops([DW_OP.regx, ...uleb(0x257231)]))).toEqual({ ok: true, location: { kind: 'register', register: '%r1' } });
  });
  it('computes a frame-base relative local', () => {
    const r = evaluate(ops([DW_OP.fbreg, ...sleb(-16), DW_OP.nop, DW_OP.plus_uconst, 12]), { frameBase: () => 0x1000n });
    expect(r).toEqual({ ok: true, location: { kind: 'memory', address: 0x1000n - 16n + 12n, symbolic: undefined } });
  });
  it('runs the arithmetic and stack operations', () => {
    const val = (bytes: number[]): bigint | undefined => {
      const r = evaluate(ops([...bytes, DW_OP.stack_value]));
      return r.ok && r.location.kind === 'value' ? r.location.value : undefined;
    };
    expect(val([DW_OP.lit0 + 7, DW_OP.lit0 + 3, DW_OP.minus])).toBe(4n);
    expect(val([DW_OP.consts, ...sleb(-9), DW_OP.lit0 + 2, DW_OP.div])).toBe(BigInt.asUintN(64, -4n));
    expect(val([DW_OP.consts, ...sleb(-9), DW_OP.abs])).toBe(9n);
    expect(val([DW_OP.lit0 + 1, DW_OP.lit0 + 2, DW_OP.swap, DW_OP.minus])).toBe(1n);
    expect(val([DW_OP.lit0 + 1, DW_OP.lit0 + 2, DW_OP.lit0 + 3, DW_OP.rot, DW_OP.drop, DW_OP.drop])).toBe(3n);
    expect(val([DW_OP.lit0 + 6, DW_OP.dup, DW_OP.mul, DW_OP.lit0 + 4, DW_OP.shl])).toBe(576n);
    expect(val([DW_OP.lit0 + 3, DW_OP.lit0 + 5, DW_OP.lt])).toBe(1n);
    expect(val([DW_OP.const2u, 0x34, 0x12, DW_OP.constu, ...uleb(0xff), DW_OP.and])).toBe(0x34n);
    // if (1) skip lit9 ; lit7
    expect(val([(DW_OP.lit0 + 1), DW_OP.bra, 1, 0, (DW_OP.lit0 + 9), (DW_OP.lit0 + 7)])).toBe(7n);
    expect(val([DW_OP.lit0, DW_OP.bra, 1, 0, (DW_OP.lit0 + 9)])).toBe(9n);
    expect(val([(DW_OP.lit0 + 2), DW_OP.skip, 1, 0, (DW_OP.lit0 + 9)])).toBe(2n);
  });
  it('reads memory and registers through callbacks', () => {
    const r = evaluate(ops([DW_OP.bregx, ...uleb(0x257264), ...sleb(4), DW_OP.deref_size, 4]), {
      readRegister: (reg) => (reg === '%rd' ? 0x100n : undefined),
      readMemory: (a, n) => (a === 0x104n && n === 4 ? 0xdeadbeefn : undefined),
    });
    expect(r).toEqual({ ok: true, location: { kind: 'memory', address: 0xdeadbeefn, symbolic: undefined } });
  });
  it('builds pieces', () => {
    const r = evaluate(ops([DW_OP.regx, ...uleb(0x257231), DW_OP.piece, 4, DW_OP.regx, ...uleb(0x257232), DW_OP.piece, 4]));
    expect(r.ok && r.location.kind === 'pieces' ? r.location.pieces.map((p) => p.location) : []).toEqual([
      { kind: 'register', register: '%r1' }, { kind: 'register', register: '%r2' },
    ]);
  });
  it('reports failures without throwing', () => {
    expect(evaluate(ops([DW_OP.plus]))).toMatchObject({ ok: false, error: 'expression stack underflow at DW_OP_plus' });
    expect(evaluate(ops([DW_OP.fbreg, 0]))).toMatchObject({ ok: false, error: 'no frame base for DW_OP_fbreg' });
    expect(evaluate(ops([(DW_OP.lit0 + 1), DW_OP.lit0, DW_OP.div]))).toMatchObject({ ok: false, error: 'division by zero in expression' });
    expect(evaluate(ops([DW_OP.skip, 0xfd, 0xff]))).toMatchObject({ ok: false, error: 'expression did not finish within 10000 steps' });
    expect(evaluate([])).toEqual({ ok: true, location: { kind: 'empty' } });
  });
});
