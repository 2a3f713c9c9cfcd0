/**
 * mma.sync m16n8k32 with .e4m3/.e5m2 operands (PTX ISA 8.4, sm_89): fragments as the ISA's
 * "Matrix fragments for mma.m16n8k32" for 8-bit types (written out here), D compared with a plain
 * multiply; the decoding of special codes worked out by hand from the formats (E4M3: bias 7, no
 * infinities, S.1111.111 NaN; E5M2: bias 15, IEEE-like).
 */
import type { Launch } from '../../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../../src/exec/machine.js';
import { unsupportedInstructions } from '../../../src/exec/support.js';
import { loadPtx } from '../../../src/ptx/index.js';

type P = [number, number];
const g = (l: number): number => l >> 2, tig = (l: number): number => l % 4;
// a0..a3 and a8..a11 row groupID, the rest groupID+8; col tig*4 + (i & 3), +16 from a8
const aPos = (l: number, i: number): P => [(i < 4 || (i >= 8 && i < 12)) ? g(l) : g(l) + 8, tig(l) * 4 + (i & 3) + (i < 8 ? 0 : 16)];
// b0..b3 rows tig*4 .., b4..b7 16 rows further; column groupID
const bPos = (l: number, i: number): P => [tig(l) * 4 + (i & 3) + (i < 4 ? 0 : 16), g(l)];
const cPos = (l: number, i: number): P => [i < 2 ? g(l) : g(l) + 8, tig(l) * 2 + (i & 1)];

const KERNEL = (types: string, target: string): string => `.version 8.4
.target ${target}
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %a<4>; .reg .b32 %b<2>; .reg .f32 %c<4>; .reg .f32 %d<4>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 48; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd2, %rd5;
  ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd4];
  ld.global.v2.b32 {%b0, %b1}, [%rd4+16];
  ld.global.f32 %c0, [%rd4+24]; ld.global.f32 %c1, [%rd4+28]; ld.global.f32 %c2, [%rd4+32]; ld.global.f32 %c3, [%rd4+36];
  mma.sync.aligned.m16n8k32.row.col.f32.${types}.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
  st.global.v4.f32 [%rd6], {%d0, %d1, %d2, %d3};
  ret;
}`;

/** Runs with A, B given as fp8 codes (16x32, 32x8) and C as numbers; returns D (16x8). */
function run(types: string, A: number[][], B: number[][], C: number[][], target = 'sm_89'): number[][] {
  const loaded = loadPtx(KERNEL(types, target), 'fp8.ptx');
  if (!loaded.program) throw new Error(JSON.stringify(loaded.diagnostics));
  const inp = new DataView(new ArrayBuffer(32 * 48));
  for (let l = 0; l < 32; l++) {
    for (let i = 0; i < 16; i++) { const [r, c] = aPos(l, i); inp.setUint8(l * 48 + i, A[r]![c]!); }
    for (let i = 0; i < 8; i++) { const [r, c] = bPos(l, i); inp.setUint8(l * 48 + 16 + i, B[r]![c]!); }
    for (let i = 0; i < 4; i++) { const [r, c] = cPos(l, i); inp.setFloat32(l * 48 + 24 + 4 * i, C[r]![c]!, true); }
  }
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'inp', type: 'u8', count: 32 * 48, init: new Uint8Array(inp.buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u8', count: 32 * 16, init: undefined, file: undefined },
    ],
  };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : res.fault?.message).toBe('ok');
  const base = m.buffers[1]!.alloc.base;
  const out = new DataView(m.arena.bank.u8.slice(base, base + 32 * 16).buffer);
  const D = Array.from({ length: 16 }, () => new Array<number>(8).fill(NaN));
  for (let l = 0; l < 32; l++) for (let i = 0; i < 4; i++) { const [r, c] = cPos(l, i); D[r]![c] = out.getFloat32(l * 16 + 4 * i, true); }
  return D;
}

const mat = (r: number, c: number, f: (i: number, j: number) => number): number[][] => Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => f(i, j)));

// exact small values and their codes: e4m3 1.E.MMM (bias 7), e5m2 1.E.MM (bias 15)
const E4M3: [number, number][] = [[0, 0x00], [0.5, 0x30], [0.75, 0x34], [1, 0x38], [1.5, 0x3c], [-1, 0xb8], [-0.25, 0xa8], [2, 0x40], [-1.75, 0xbe]];
const E5M2: [number, number][] = [[0, 0x00], [0.5, 0x38], [0.75, 0x3a], [1, 0x3c], [1.5, 0x3e], [-1, 0xbc], [-0.25, 0xb4], [2, 0x40], [-1.75, 0xbf]];

test.each([
  ['e4m3.e4m3', E4M3, E4M3], ['e5m2.e5m2', E5M2, E5M2], ['e4m3.e5m2', E4M3, E5M2], ['e5m2.e4m3', E5M2, E4M3],
])('mma m16n8k32 .%s -> f32 equals A*B + C', (types, ta, tb) => {
  const pa = (i: number, j: number): [number, number] => ta[(i * 5 + j * 3) % ta.length]!;
  const pb = (i: number, j: number): [number, number] => tb[(i * 7 + j * 2) % tb.length]!;
  const C = mat(16, 8, (i, j) => i - 2 * j);
  const D = run(types, mat(16, 32, (i, j) => pa(i, j)[1]), mat(32, 8, (i, j) => pb(i, j)[1]), C);
  const want = C.map((row, i) => row.map((c, j) => Array.from({ length: 32 }, (_, k) => pa(i, k)[0] * pb(k, j)[0]).reduce((s, x) => s + x, c)));
  expect(D).toEqual(want);
});

test('special codes decode exactly', () => {
  // column 0 of A holds one code per row, B[0][0] = 1.0 and every other entry 0, C = 0: D[r][0] is the code's value
  const check = (types: string, one: number, codes: [number, number][]): void => {
    const A = mat(16, 32, (i, j) => (j === 0 ? codes[i]?.[0] ?? 0 : 0));
    const B = mat(32, 8, (i, j) => (i === 0 && j === 0 ? one : 0));
    const D = run(types, A, B, mat(16, 8, () => 0));
    codes.forEach(([, v], r) => expect([r, D[r]![0]]).toEqual([r, v]));
  };
  check('e4m3.e4m3', 0x38, [
    [0x7e, 448], // S0 1111 110: 1.75 * 2^8, the largest
    [0x78, 256], // 1111 000 is a number (no infinities)
    [0x08, 2 ** -6], // smallest normal
    [0x01, 2 ** -9], // subnormal 0.001b * 2^-6
    [0x07, 7 * 2 ** -9],
    [0x7f, NaN], [0xff, NaN], // S.1111.111
    [0xf8, -256],
  ]);
  check('e5m2.e5m2', 0x3c, [
    [0x7b, 57344], // 1.75 * 2^15, the largest
    [0x7c, Infinity], [0xfc, -Infinity],
    [0x7d, NaN], [0x7f, NaN],
    [0x04, 2 ** -14], // smallest normal
    [0x01, 2 ** -16], // subnormal 0.01b * 2^-14
    [0x83, -3 * 2 ** -16],
  ]);
});

test('an sm_80 module is refused where the instruction stands; sm_90a is accepted', () => {
  const diag = (target: string): string[] => unsupportedInstructions(loadPtx(KERNEL('e4m3.e5m2', target), 'fp8.ptx').program!).map((d) => d.message);
  expect(diag('sm_80')).toEqual([expect.stringMatching(/e4m3\.e5m2.*need sm_89 or higher; the module's \.target is sm_80/)]);
  expect(diag('sm_90a')).toEqual([]);
  expect(diag('sm_89')).toEqual([]);
});
