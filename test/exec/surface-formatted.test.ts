/**
 * Formatted surface stores and reductions (sust.p, sured.p). The PTX ISA's rules, applied by hand
 * here: x counts samples; sources are R, G, B, A left to right; UNORM/SNORM/FLOAT formats read an
 * .f32, UINT a .u32, SINT an .s32, converted to the channel (saturating, round to nearest even).
 * Every expected byte below is worked out in the comment next to it.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { parseLaunch } from '../../src/exec/launch.js';
import { loadPtx } from '../../src/ptx/index.js';

const KERNEL = (body: string): string => `.version 8.0
.target sm_80
.address_size 64
.visible .entry s(.param .u64 surf)
{
  .reg .b32 %r<12>; .reg .f32 %f<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [surf];
  ${body}
  ret;
}`;

interface Out { bytes: number[]; fault: string | undefined; faultKind: string | undefined; pc: number | undefined }

function run(body: string, img: Record<string, unknown>): Out {
  const loaded = loadPtx(KERNEL(body), 's.ptx');
  if (!loaded.program) throw new Error(`kernel does not load: ${JSON.stringify(loaded.diagnostics)}`);
  const launch = parseLaunch({ kernel: 's', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'img', type: 'surface', ...img }] }, loaded.program, '.', 'L');
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  const b = m.buffers.find((x) => x.name === 'img')!;
  return { bytes: Array.from(m.arena.bank.u8.slice(b.alloc.base, b.alloc.base + b.count)), fault: r.fault?.message, faultKind: r.fault?.kind, pc: r.fault?.pc };
}

const f32 = (x: number): string => `0f${new Uint32Array(new Float32Array([x]).buffer)[0]!.toString(16).padStart(8, '0').toUpperCase()}`;
const NAN = '0f7FC00000';
const u16le = (bytes: number[], i: number): number => bytes[2 * i]! | (bytes[2 * i + 1]! << 8);

describe('sust.p', () => {
  test('UNORM uchar4: clamp to [0, 1], scale by 255, round to nearest even; NaN is 0', () => {
    // texel (1, 0): 0.5*255 = 127.5 -> 128 (even); 1.5 -> 1 -> 255; -0.25 -> 0; NaN -> 0
    const r = run(`mov.f32 %f1, ${f32(0.5)}; mov.f32 %f2, ${f32(1.5)}; mov.f32 %f3, ${f32(-0.25)}; mov.f32 %f4, ${NAN};
      sust.p.2d.v4.b32.trap [%rd1, {1, 0}], {%f1, %f2, %f3, %f4};`,
    { format: 'uchar4', extent: [2, 2], readMode: 'normalizedFloat', value: Array(16).fill(7) });
    expect(r.fault).toBeUndefined();
    expect(r.bytes.slice(4, 8)).toEqual([128, 255, 0, 0]);
    // the other texels keep their bytes (x counts samples: x = 1 is bytes 4..7, not byte 1)
    expect(r.bytes.slice(0, 4)).toEqual([7, 7, 7, 7]);
    expect(r.bytes.slice(8)).toEqual(Array(8).fill(7));
  });

  test('SNORM char4: clamp to [-1, 1], scale by 127, ties to even in both directions', () => {
    // -1.5 -> -1 -> -127 = 0x81; 0.5*127 = 63.5 -> 64; -0.5*127 = -63.5 -> -64 = 0xc0 (even, not -63); 2 -> 127
    const r = run(`mov.f32 %f1, ${f32(-1.5)}; mov.f32 %f2, ${f32(0.5)}; mov.f32 %f3, ${f32(-0.5)}; mov.f32 %f4, ${f32(2)};
      sust.p.1d.v4.b32.trap [%rd1, {2}], {%f1, %f2, %f3, %f4};`,
    { format: 'char4', extent: [4], readMode: 'normalizedFloat' });
    expect(r.bytes.slice(8, 12)).toEqual([0x81, 64, 0xc0, 127]);
    expect(r.bytes.filter((_, i) => i < 8 || i >= 12).every((b) => b === 0)).toBe(true);
  });

  test('half: f32 rounds to nearest even; 65520 (halfway to 65536) overflows to infinity', () => {
    // 1/3 = 1.0101...b * 2^-2: exponent 13 (0x3400), mantissa round(0.3333*1024) = 341 = 0x155 -> 0x3555
    const r = run(`mov.f32 %f1, ${f32(1 / 3)}; mov.f32 %f2, ${f32(65520)}; mov.f32 %f3, ${f32(-2)};
      sust.p.1d.b32.trap [%rd1, {0}], {%f1}; sust.p.1d.b32.trap [%rd1, {1}], {%f2}; sust.p.1d.b32.trap [%rd1, {2}], {%f3};`,
    { format: 'half', extent: [3] });
    expect([u16le(r.bytes, 0), u16le(r.bytes, 1), u16le(r.bytes, 2)]).toEqual([0x3555, 0x7c00, 0xc000]);
  });

  test('float4 with .v2 writes R and G only; a float surface stores the f32 bits', () => {
    const r = run(`mov.f32 %f1, ${f32(1.25)}; mov.f32 %f2, ${f32(-3)}; sust.p.2d.v2.b32.trap [%rd1, {0, 1}], {%f1, %f2};`,
      { format: 'float4', extent: [1, 2], value: [9, 9, 9, 9, 9, 9, 9, 9] });
    const fl = new Float32Array(new Uint8Array(r.bytes).buffer);
    expect(Array.from(fl)).toEqual([9, 9, 9, 9, 1.25, -3, 9, 9]);
  });

  test('UINT / SINT formats read .u32 / .s32 and saturate to the channel', () => {
    // ushort: 70000 -> 65535, 5 -> 5 (channel order R, G)
    const u = run('mov.u32 %r1, 70000; mov.u32 %r2, 5; sust.p.1d.v2.b32.trap [%rd1, {1}], {%r1, %r2};', { format: 'ushort2', extent: [2] });
    expect([u16le(u.bytes, 2), u16le(u.bytes, 3)]).toEqual([65535, 5]);
    // short: -40000 -> -32768 = 0x8000; 40000 -> 32767 = 0x7fff; -2 -> 0xfffe
    const s = run('mov.s32 %r1, -40000; mov.s32 %r2, 40000; mov.s32 %r3, -2; mov.s32 %r4, 1; sust.p.1d.v4.b32.trap [%rd1, {0}], {%r1, %r2, %r3, %r4};', { format: 'short4', extent: [1] });
    expect([0, 1, 2, 3].map((i) => u16le(s.bytes, i))).toEqual([0x8000, 0x7fff, 0xfffe, 1]);
    // uchar read as integers (no normalizedFloat): 300 -> 255; a one-channel format ignores G, B, A
    const c = run('mov.u32 %r1, 300; mov.u32 %r2, 1; sust.p.1d.v4.b32.trap [%rd1, {1}], {%r1, %r2, %r2, %r2};', { format: 'uchar', extent: [3] });
    expect(c.bytes).toEqual([0, 255, 0]);
    // int: the bits go through unchanged
    const i = run('mov.s32 %r1, -7; sust.p.1d.b32.trap [%rd1, {0}], {%r1};', { format: 'int', extent: [1] });
    expect(i.bytes).toEqual([0xf9, 0xff, 0xff, 0xff]);
  });

  test('layered (a2d): the layer comes first, then x and y in samples', () => {
    // 2x1 texels per layer, 2 layers of uint: layer 1, x 1 is word 3
    const r = run('mov.u32 %r1, 77; sust.p.a2d.b32.trap [%rd1, {1, 1, 0, 0}], {%r1};', { format: 'uint', extent: [2, 1], layers: 2 });
    expect(Array.from(new Uint32Array(new Uint8Array(r.bytes).buffer))).toEqual([0, 0, 0, 77]);
  });

  test('out of range: .trap faults naming the sample, .zero drops the store, .clamp writes the edge texel', () => {
    const t = run('mov.u32 %r1, 1; sust.p.2d.b32.trap [%rd1, {3, 0}], {%r1};', { format: 'uint', extent: [3, 2] });
    expect(t.fault).toMatch(/sust out of range on surface img: sample x 3, y 0/);
    const z = run('mov.u32 %r1, 1; sust.p.2d.b32.zero [%rd1, {3, 0}], {%r1}; sust.p.2d.b32.zero [%rd1, {-1, 0}], {%r1};', { format: 'uint', extent: [3, 2] });
    expect(z.fault).toBeUndefined();
    expect(z.bytes.every((b) => b === 0)).toBe(true);
    // x 9 -> 2, y 5 -> 1: word 1*3 + 2 = 5
    const c = run('mov.u32 %r1, 4; sust.p.2d.b32.clamp [%rd1, {9, 5}], {%r1};', { format: 'uint', extent: [3, 2] });
    expect(Array.from(new Uint32Array(new Uint8Array(c.bytes).buffer))).toEqual([0, 0, 0, 0, 0, 4]);
  });
});

describe('sured.p', () => {
  test('x counts samples; uint reduces as .u32, int as .s32', () => {
    // uint [10, 20]: add 5 at sample 1 -> 25; max(10, 0xfffffffe) unsigned -> 0xfffffffe
    const u = run('mov.u32 %r1, 5; mov.u32 %r2, 0xfffffffe; sured.p.add.1d.b32.trap [%rd1, {1}], %r1; sured.p.max.1d.b32.trap [%rd1, {0}], %r2;', { format: 'uint', extent: [2], value: [10, 20] });
    expect(Array.from(new Uint32Array(new Uint8Array(u.bytes).buffer))).toEqual([0xfffffffe, 25]);
    // int [10, 20]: max(10, -2) signed -> 10; min(20, -2) -> -2
    const s = run('mov.s32 %r1, -2; sured.p.max.1d.b32.trap [%rd1, {0}], %r1; sured.p.min.1d.b32.trap [%rd1, {1}], %r1;', { format: 'int', extent: [2], value: [10, 20] });
    expect(Array.from(new Int32Array(new Uint8Array(s.bytes).buffer))).toEqual([10, -2]);
  });

  test('a float surface, or .b64 (no 64-bit sample format), is a located fault', () => {
    const f = run('mov.u32 %r1, 1; sured.p.add.1d.b32.trap [%rd1, {0}], %r1;', { format: 'float', extent: [2] });
    expect(f.fault).toMatch(/sured\.p.*surface img \(float\): sured\.p needs a 32-bit integer format/);
  });
});

test('malformed formatted surface instructions are located compile errors', () => {
  const bad = (body: string): Out => run(body, { format: 'uint', extent: [2] });
  const cases: [string, RegExp][] = [
    ['sust.p.1d.b8.trap [%rd1, {0}], {%r1};', /needs \.b32/],
    ['sust.p.1d.v2.b32.trap [%rd1, {0}], {%r1};', /expected 2 data register/],
    ['sust.p.cube.b32.trap [%rd1, {0, 0, 0}], {%r1};', /needs \.1d \.2d \.3d \.a1d or \.a2d/],
    ['sust.p.2d.b32.trap [%rd1, {0}], {%r1};', /expected 2 coordinate/],
    ['sured.p.add.1d.b64.trap [%rd1, {0}], %rd2;', /\.b64 is restricted to \.min and \.max/],
    ['sured.p.1d.b32.trap [%rd1, {0}], %r1;', /needs \.add \.min \.max \.and or \.or/],
  ];
  for (const [body, msg] of cases) {
    const r = bad(`mov.u32 %r1, 0; ${body}`);
    expect(r.faultKind).toBe('unsupported');
    expect(r.pc).toBe(2); // ld.param, mov, then the bad instruction
    expect(r.fault).toMatch(msg);
  }
});
