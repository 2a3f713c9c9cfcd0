/**
 * ldmatrix: the test stores 32 rows of 8 u16 (row s holds s*8 .. s*8+7) into shared memory, lets
 * lane l give the address of row (5l mod 32), and checks every lane's registers against the
 * ldmatrix layout of the PTX ISA: register j of lane l holds tile j's row l/4, columns 2(l%4) and
 * 2(l%4)+1 (with .trans the same positions of the transposed tile).
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { loadPtx } from '../../../src/ptx/index.js';

const perm = (l: number): number => (l * 5) % 32;

function kernel(n: number, trans: boolean, generic: boolean): string {
  const regs = Array.from({ length: n }, (_, j) => `%d${j}`);
  const stores = regs.map((r, j) => `st.global.u32 [%rd6+${4 * j}], ${r};`).join('\n  ');
  const ldm = generic
    ? `cvta.shared.u64 %rd7, %rd8; ldmatrix.sync.aligned.m8n8.x${n}${trans ? '.trans' : ''}.b16 {${regs.join(', ')}}, [%rd7];`
    : `ldmatrix.sync.aligned.m8n8.x${n}${trans ? '.trans' : ''}.shared.b16 {${regs.join(', ')}}, [%r5];`;
  return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .shared .align 16 .b8 tile[512];
  .reg .b32 %r<8>; .reg .b32 %d<4>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16; add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r6}, [%rd4];
  mov.u32 %r7, tile;
  shl.b32 %r5, %r1, 4; add.u32 %r5, %r5, %r7;
  st.shared.v4.u32 [%r5], {%r2, %r3, %r4, %r6};
  bar.sync 0;
  mul.lo.u32 %r5, %r1, 5; and.b32 %r5, %r5, 31; shl.b32 %r5, %r5, 4; add.u32 %r5, %r5, %r7;
  cvt.u64.u32 %rd8, %r5;
  ${ldm}
  mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd2, %rd5;
  ${stores}
  ret;
}`;
}

function run(n: number, trans: boolean, generic = false): Uint32Array {
  const loaded = loadPtx(kernel(n, trans, generic), 'ldm.ptx');
  if (!loaded.program) throw new Error(`test kernel does not load: ${JSON.stringify(loaded)}`);
  const inp = new Uint16Array(256).map((_, i) => i);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u16', count: 256, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u32', count: 128, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const b = m.buffers[1]!.alloc.base;
  return new Uint32Array(m.arena.bank.u8.slice(b, b + 512).buffer);
}

/** Element (r, c) of tile j: the stored row that lane 8j+r pointed at, column c. */
const elem = (j: number, r: number, c: number): number => perm(8 * j + r) * 8 + c;

test.each([
  [1, false], [2, false], [4, false], [1, true], [2, true], [4, true],
])('ldmatrix .x%d (trans: %s) gives each lane its fragment', (n, trans) => {
  const out = run(n, trans);
  for (let l = 0; l < 32; l++) for (let j = 0; j < n; j++) {
    const g = l >> 2, c = 2 * (l % 4);
    const lo = trans ? elem(j, c, g) : elem(j, g, c);
    const hi = trans ? elem(j, c + 1, g) : elem(j, g, c + 1);
    expect(out[l * 4 + j]).toBe(lo | (hi << 16));
  }
});

test('ldmatrix without a state space takes generic addresses into shared memory', () => {
  const out = run(4, false, true);
  expect(out[5 * 4 + 3]).toBe(elem(3, 1, 2) | (elem(3, 1, 3) << 16));
});

test('movmatrix.trans transposes the tile held in ldmatrix layout', () => {
  // lane l holds tile (r, c) = r*8 + c at row l/4, columns 2(l%4), 2(l%4)+1; after the transpose
  // it holds (c, r) at the same positions
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 2; shl.b32 %r2, %r2, 3; and.b32 %r3, %r1, 3; shl.b32 %r3, %r3, 1; add.u32 %r2, %r2, %r3;
  add.u32 %r4, %r2, 1; shl.b32 %r4, %r4, 16; or.b32 %r5, %r2, %r4;
  movmatrix.sync.aligned.m8n8.trans.b16 %r6, %r5;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}`;
  const loaded = loadPtx(ptx, 'mov.ptx');
  const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 32, init: undefined, file: undefined }] };
  const m = new Machine(loaded.program!, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const b = m.buffers[0]!.alloc.base;
  const out = new Uint32Array(m.arena.bank.u8.slice(b, b + 128).buffer);
  for (let l = 0; l < 32; l++) {
    const r = l >> 2, c = 2 * (l % 4);
    expect(out[l]).toBe((c * 8 + r) | (((c + 1) * 8 + r) << 16));
  }
});
