/**
 * Video instructions (scalar vadd .. vset, vmad, and the 2/4-way SIMD forms). Each case runs one
 * instruction on one thread with register inputs a, b, c; the expected values are worked out by
 * hand from the PTX ISA pseudocode (the comment on each case shows the working).
 */
import type { Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { loadPtx } from '../../src/ptx/index.js';

type Case = [instr: string, a: number, b: number, c: number, expected: number];

function kernel(instrs: readonly string[], inputs: readonly [number, number, number][]): string {
  const body = instrs.map((ins, k) => {
    const [a, b, c] = inputs[k]!;
    return `mov.u32 %a, ${a >>> 0}; mov.u32 %b, ${b >>> 0}; mov.u32 %c, ${c >>> 0};
  ${ins.replace(/\bd\b/, '%d').replace(/\ba\b/, '%a').replace(/\bb\b/, '%b').replace(/\bc\b/, '%c')};
  st.global.u32 [%rd1+${4 * k}], %d;`;
  }).join('\n  ');
  return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %a, %b, %c, %d; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ${body}
  ret;
}`;
}

function run(cases: readonly Case[]): number[] {
  const ptx = kernel(cases.map((c) => c[0]), cases.map((c) => [c[1], c[2], c[3]]));
  const loaded = loadPtx(ptx, 'video.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded.diagnostics)}`);
  expect(unsupportedInstructions(loaded.program).map((d) => d.message)).toEqual([]);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: cases.length, init: undefined, file: undefined }],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const base = m.buffers[0]!.alloc.base;
  return [...new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * cases.length).buffer)];
}

function check(cases: readonly Case[]): void {
  const got = run(cases);
  const hex = (x: number): string => `0x${(x >>> 0).toString(16)}`;
  expect(cases.map((c, i) => `${c[0]} -> ${hex(got[i]!)}`)).toEqual(cases.map((c) => `${c[0]} -> ${hex(c[4])}`));
}

test('scalar vadd/vsub/vabsdiff/vmin/vmax: selectors, .sat, secondary operation, merge', () => {
  check([
    // a.b1 = 0xff, b.h0 = 0xffff: 255 + 65535 = 0x100fe, within u32
    ['vadd.u32.u32.u32.sat d, a.b1, b.h0, c', 0x0000ff00, 0x0001ffff, 0, 0x000100fe],
    // signed bytes -128 + -1 = -129
    ['vadd.s32.s32.s32.sat d, a.b0, b.b0', 0x80, 0xff, 0, -129],
    // merge into byte 1: .sat clamps to the s8 range first, -129 -> -128 = 0x80
    ['vadd.s32.s32.s32.sat d.b1, a.b0, b.b0, c', 0x80, 0xff, 0x11223344, 0x11228044],
    // merge without .sat keeps the low half of -2
    ['vsub.u32.u32.u32 d.h1, a, b, c', 1, 3, 0x11223344, 0xfffe3344],
    // |10 - 250| = 240, then min with c
    ['vabsdiff.u32.u32.u32.min d, a, b, c', 10, 250, 100, 100],
    ['vabsdiff.u32.u32.u32.min d, a, b, c', 10, 250, 300, 240],
    // a.h1 = -1 (s16), b.h0 = 5: max 5, plus c = -10 -> -5
    ['vmax.s32.s32.s32.add d, a.h1, b.h0, c', 0xffff0000, 5, -10, -5],
    // unsigned destination: 3 - 5 clamps to 0; signed destination of 0 - 0xffffffff clamps to S32_MIN
    ['vsub.u32.u32.u32.sat d, a, b', 3, 5, 0, 0],
    ['vsub.s32.u32.u32.sat d, a, b', 0, 0xffffffff, 0, 0x80000000],
    // without .sat the low 32 bits of the 34-bit result
    ['vadd.u32.u32.u32 d, a, b', 0xffffffff, 0xffffffff, 0, 0xfffffffe],
    // .min compares with c taken as signed (dtype .s32): min(7, -1) = -1
    ['vmin.s32.u32.u32.min d, a, b, c', 7, 9, -1, -1],
    // the ignored fourth operand nvcc's inline asm may pass
    ['vmin.u32.u32.u32 d, a, b, c', 7, 9, 1, 7],
  ]);
});

test('scalar vshl/vshr: .clamp and .wrap shift counts, .sat, secondary add', () => {
  check([
    ['vshl.u32.u32.u32.clamp d, a, b', 1, 40, 0, 0], // count 32: 2^32, low word 0
    ['vshl.u32.u32.u32.sat.clamp d, a, b', 1, 40, 0, 0xffffffff], // 2^32 clamps to U32_MAX
    ['vshl.u32.u32.u32.wrap d, a, b', 1, 40, 0, 256], // 40 & 31 = 8
    ['vshr.s32.s32.u32.clamp d, a, b', 0x80000000, 33, 0, 0xffffffff], // -2^31 >> 32 = -1
    ['vshr.u32.u32.u32.clamp d, a, b', 0x80000000, 33, 0, 0],
    ['vshl.u32.u32.u32.clamp.add d, a, b, c', 3, 4, 1, 49], // 48 + 1
    ['vshr.u32.u32.u32.wrap d, a.h1, b, c', 0xf0000000, 0x24, 0, 0x0f00], // 0xf000 >> (36 & 31)
    ['vshl.s32.s32.u32.sat.clamp d.h0, a.b0, b, c', 0x40, 2, 0xabcd0000, 0xabcd0100], // 64 << 2 = 256 fits s16
    ['vshl.s32.s32.u32.sat.clamp d.b0, a.b0, b, c', 0x40, 2, 0xabcd0000, 0xabcd007f], // 256 clamps to S8_MAX
  ]);
});

test('scalar vset: comparisons by operand sign, merge and secondary add', () => {
  check([
    ['vset.u32.u32.lt d, a, b', 1, 2, 0, 1],
    ['vset.s32.u32.lt d, a, b', 0xffffffff, 0, 0, 1], // -1 < 0
    ['vset.u32.u32.lt d, a, b', 0xffffffff, 0, 0, 0],
    ['vset.u32.u32.lt d.b2, a, b, c', 1, 2, 0xaabbccdd, 0xaa01ccdd],
    ['vset.s32.s32.ge.add d, a.b3, b.b3, c', 0x7f000000, 0x80000000, 41, 42], // 127 >= -128
    ['vset.u32.u32.ne.max d, a, b, c', 4, 4, 0, 0],
  ]);
});

test('vmad: negation, .po, .shr7/.shr15 and .sat', () => {
  check([
    ['vmad.u32.u32.u32 d, a.h0, b.h0, c', 0xffff, 0xffff, 1, 0xfffe0002],
    ['vmad.s32.s32.u32.sat d, a, b, -c', 0x7fffffff, 4, 1, 0x7fffffff], // 2^33 - 5 clamps
    ['vmad.s32.s32.s32 d, -a, b, c', 3, 5, 20, 5],
    ['vmad.s32.s32.s32 d, a, b, -c', 2, 3, 10, -4],
    ['vmad.u32.u32.u32.po d, a, b, c', 2, 3, 4, 11],
    ['vmad.u32.u32.u32.shr7 d, a, b, c', 1000, 1000, 0, 7812], // 1e6 / 128 = 7812.5
    // (2^32-1)^2 = 0xfffffffe00000001, >> 15 = 0x1fffffffc0000
    ['vmad.u32.u32.u32.shr15 d, a, b, c', 0xffffffff, 0xffffffff, 0, 0xfffc0000],
    ['vmad.u32.u32.u32.sat.shr15 d, a, b, c', 0xffffffff, 0xffffffff, 0, 0xffffffff],
    // a.b1 = -2 (s8), b.h1 = 0x8000 as u16 = 32768: -65536 + 7
    ['vmad.s32.s32.u32 d, a.b1, b.h1, c', 0x0000fe00, 0x80000000, 7, -65529],
  ]);
});

// bytes of A, element 0 first: 02 01 ff 80; of B: 04 03 02 80
const A = 0x80ff0102, B = 0x80020304;

test('4-way SIMD: per-byte results, .sat, vavrg rounding, masks, selectors, .add', () => {
  check([
    ['vadd4.u32.u32.u32.sat d, a, b, c', A, B, 0, 0xffff0406], // 6, 4, 0x101 -> ff, 0x100 -> ff
    ['vadd4.u32.u32.u32 d, a, b, c', A, B, 0, 0x00010406],
    ['vadd4.s32.s32.s32.sat d, a, b, c', A, B, 0, 0x80010406], // -1 + 2 = 1, -128 + -128 -> -128
    ['vsub4.s32.s32.s32.sat d, a, b, c', A, B, 0, 0x00fdfefe], // -2, -2, -3, 0
    ['vabsdiff4.u32.u32.u32.add d, a, b, c', A, B, 1000, 1257], // 2 + 2 + 253 + 0 + 1000
    ['vavrg4.u32.u32.u32 d, a, b, c', A, B, 0, 0x80810203], // (6+1)/2, (4+1)/2, (257+1)/2, (256+1)/2
    ['vavrg4.s32.s32.s32 d, a, b, c', A, B, 0, 0x80010203], // 3, 2, (1+1)>>1, -256>>1
    ['vmin4.u32.u32.u32 d.b20, a, b, c', A, B, 0xaabbccdd, 0xaa02cc02], // bytes 0 and 2 from the result
    // a from b's bytes 4..7 = 04 03 02 80; b from bytes 3,2,1,0 = 80 ff 01 02
    ['vmax4.u32.u32.u32 d, a.b7654, b.b0123, c', A, B, 0, 0x8002ff80],
    ['vset4.u32.u32.lt d, a, b, c', A, B, 0, 0x00000101],
    ['vset4.s32.s32.lt.add d, a, b, c', A, B, 10, 13], // 2<4, 1<3, -1<2, not -128<-128
    ['vmin4.u32.u32.u32.add d.b31, a, b, c', A, B, 5, 5 + 1 + 0x80], // elements 1 and 3 only
  ]);
});

test('2-way SIMD: halves, .sat, vavrg of negative sums, masks, selectors, vset2', () => {
  check([
    ['vadd2.s32.s32.s32.sat d, a, b, c', 0x7fff8000, 0x00018000, 0, 0x7fff8000],
    ['vsub2.u32.u32.u32.sat d.h1, a, b, c', 0x00050003, 0x00030005, 0x1234abcd, 0x0002abcd],
    ['vmin2.s32.u32.u32.add d.h0, a.h10, b.h32, c', 0x00050003, 0x00030005, 100, 103],
    // a: element 0 = a's half 1 (7), element 1 = half 0 (3); b: element 0 = half 3 (b.h1 = 3), 1 = half 2 (5)
    ['vabsdiff2.u32.u32.u32 d, a.h01, b.h23, c', 0x00070003, 0x00030005, 0, 0x00020004],
    ['vavrg2.s32.s32.s32 d, a, b, c', 0x0001fffd, 0x00020000, 0, 0x0002fffe], // (1+2+1)>>1, -3>>1 = -2
    ['vset2.u32.u32.ne d, a, b, c', 0x00050003, 0x00050004, 0, 1],
    ['vmax2.u32.u32.u32 d, a, b, c', 0x00010009, 0x00020003, 0, 0x00020009],
  ]);
});

test('video forms the ISA does not define are located errors', () => {
  const ptx = kernel([
    'vadd4.u32.u32.u32.sat.add d, a, b, c',
    'vadd.u32.u32.u32.add d.b1, a, b, c',
    'vadd2.u32.u32.u32 d, a.h4, b, c',
    'vadd.u32.u32 d, a, b',
  ], [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]);
  const loaded = loadPtx(ptx, 'bad.ptx');
  const msgs = unsupportedInstructions(loaded.program!).map((d) => d.message);
  expect(msgs).toHaveLength(4);
  expect(msgs[0]).toMatch(/\.sat cannot be combined with the \.add/);
  expect(msgs[1]).toMatch(/cannot be combined with \.add/);
  expect(msgs[2]).toMatch(/bad selector/);
  expect(msgs[3]).toMatch(/needs 3 operand types/);
});
