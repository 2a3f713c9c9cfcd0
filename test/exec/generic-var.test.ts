/**
 * A .shared or .local variable named in a generic access (`ld.b32 t, [to];`, `st.b32 [to+4], r;`,
 * `atom.add.u32 d, [to+12], 5;`, no state space on the instruction): the variable's generic
 * address is meant, as for `cvta.shared` of it (PTX ISA, generic addressing; ptxas 13 accepts
 * these). A .const or .param variable in a generic access is refused by ptxas ("State space
 * mismatch") and is a located error here. Expected values: the stores' own values.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { loadPtx } from '../../src/ptx/index.js';

const HEAD = `.version 8.4
.target sm_80
.address_size 64
.const .align 4 .b32 cst[2] = {21, 22};
`;
const PTX = `${HEAD}.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 to[4];
  .local .align 4 .b32 lo[2];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  st.b32 [to], %r1;
  st.b32 [to+4], 9;
  st.shared.b32 [to+8], 11;
  ld.b32 %r2, [to];
  ld.b32 %r3, [to+4];
  ld.b32 %r4, [to+8];
  st.b32 [lo+4], %r4;
  ld.local.b32 %r5, [lo+4];
  cvta.shared.u64 %rd2, to;
  ld.b32 %r6, [%rd2+4];
  atom.add.u32 %r7, [to+12], 5;
  ld.shared.b32 %r8, [to+12];
  st.global.v4.b32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v2.b32 [%rd1+16], {%r6, %r8};
  ret;
}`;

test('a shared or local variable in a generic access is its generic address', () => {
  const loaded = loadPtx(PTX, 'generic-var.ptx');
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const m = new Machine(loaded.program!, {
    kernel: 'k', grid: [1, 1, 1], block: [2, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 6, init: undefined, file: undefined }],
  }, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base >> 2;
  // to[0..2] = 7, 9, 11 read back generically and through the space; lo[1] = 11; cvta'd to[1] = 9;
  // two threads each atom.add 5 onto to[3] = 0 -> 10
  expect(Array.from(m.arena.bank.u32.subarray(base, base + 6))).toEqual([7, 9, 11, 11, 9, 10]);
});

test('a const or param variable in a generic access is refused where it stands (ptxas: state space mismatch)', () => {
  const body = (line: string): string => `${HEAD}.visible .entry k(.param .u32 n)\n{\n  .reg .b32 %r<3>;\n  ${line}\n  ret;\n}\n`;
  const diag = (line: string): string[] => unsupportedInstructions(loadPtx(body(line), 'g.ptx').program!).map((d) => d.message);
  expect(diag('ld.b32 %r1, [cst+4];')).toEqual([expect.stringMatching(/state space mismatch: a generic ld cannot name a \.const variable/)]);
  expect(diag('ld.b32 %r1, [n];')).toEqual([expect.stringMatching(/cannot name a \.param variable/)]);
  expect(diag('ld.const.b32 %r1, [cst+4];')).toEqual([]);
});
