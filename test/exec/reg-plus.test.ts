/**
 * A register plus a constant as a plain source operand (`st.u64 [x], temp + 1;`): ptxas 13
 * accepts `reg + constexpr` (and refuses `reg - c`, `c + reg`, `reg * c`); it is read as the
 * register's value plus the constant, wrapping at the operand's integer width. Expected values
 * are the hand-computed sums.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { loadPtx } from '../../src/ptx/index.js';

const PTX = `.version 8.4
.target sm_80
.address_size 64
.global .align 8 .u64 x;
.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .u64 temp;
  ld.param.u64 %rd1, [out];
  mov.u64 temp, 0xffffffff;
  st.global.u64 [x], temp + 1;
  ld.global.u64 %rd2, [x];
  st.global.u64 [%rd1], %rd2;
  st.global.u64 [%rd1+8], %rd2+(4*2);
  mov.u32 %r1, 0;
  mov.u32 %r2, %r1 + -1;
  add.u32 %r3, %r1 + 0x100000005, 2;
  st.global.v2.u32 [%rd1+16], {%r2, %r3};
  mov.u16 %h1, 0xffff;
  mov.u16 %h2, %h1 + 3;
  cvt.u32.u16 %r4, %h2;
  st.global.u32 [%rd1+24], %r4;
  ret;
}`;

test('reg + constant reads as the sum in the operand type, carries into the high word and wraps', () => {
  const loaded = loadPtx(PTX, 'regplus.ptx');
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const m = new Machine(loaded.program!, {
    kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 8, init: undefined, file: undefined }],
  }, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base >> 2;
  const w = Array.from(m.arena.bank.u32.subarray(base, base + 8));
  // 0xffffffff + 1 = 0x1_0000_0000; + 8 more; 0 + -1 = 0xffffffff (u32); 0 + 0x100000005 = 5 (u32) + 2;
  // 0xffff + 3 = 2 (u16)
  expect(w).toEqual([0, 1, 8, 1, 0xffffffff, 7, 2, 0]);
});

test('reg + constant on a float operand or a special register is a located error; reg - c does not parse (as in ptxas)', () => {
  const body = (line: string): string => `.version 8.4\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  .reg .f32 %f<3>; .reg .b32 %r<3>;\n  ${line}\n  ret;\n}\n`;
  const f = loadPtx(body('mov.f32 %f1, %f2 + 1;'), 'f.ptx');
  expect(unsupportedInstructions(f.program!).map((d) => d.message)).toEqual([expect.stringMatching(/'%f2 \+ 1' as a \.f32 operand: .*not documented/)]);
  const sp = loadPtx(body('mov.u32 %r1, %tid.x + 1;'), 's.ptx');
  expect(sp.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/special register '%tid.x' cannot take an offset/)]);
  const minus = loadPtx(body('mov.u32 %r1, %r2 - 1;'), 'm.ptx');
  expect(minus.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/expected ';'/)]);
});
