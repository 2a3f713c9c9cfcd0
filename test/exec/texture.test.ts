/**
 * Textures and surfaces. Expected values are computed by hand from the CUDA Programming Guide's
 * texture-fetching rules (weights in 9-bit fixed point with 8 fraction bits), the PTX ISA's tld4
 * order and surface byte coordinates, and the OpenCL codes txq reports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchError, parseLaunch } from '../../src/exec/launch.js';
import { Trace } from '../../src/trace/trace.js';
import { launchToJson, readTraceFile, writeTraceFile } from '../../src/trace/file.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { addressIndex, cubeFace, quantizeWeight } from '../../src/exec/texture/sample.js';
import { loadPtx } from '../../src/ptx/index.js';

/** A kernel where thread t reads coordinates coords[t] (2 x f32 or s32) and stores what `fetch` returns. */
function texKernel(fetch: string, coordType: 'f32' | 's32' = 'f32'): string {
  return `.version 8.0
.target sm_80
.address_size 64
.global .texref tref;
.visible .entry k(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
  .reg .f32 %f<12>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [tex]; ld.param.u64 %rd2, [coords]; ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8; add.s64 %rd5, %rd2, %rd4;
  ld.global.v2.${coordType === 'f32' ? 'f32 {%f1, %f2}' : 'u32 {%r2, %r3}'}, [%rd5];
  ${fetch}
  mul.wide.u32 %rd6, %r1, 16; add.s64 %rd7, %rd3, %rd6;
  st.global.v4.b32 [%rd7], {%r4, %r5, %r6, %r7};
  ret;
}`;
}

/** Run `fetch` for each coordinate pair; returns the 4 result words per thread (floats or ints). */
function run(fetch: string, tex: Record<string, unknown>, coords: number[][], opts: { coordType?: 'f32' | 's32'; ints?: boolean; refs?: Record<string, unknown> } = {}): number[][] {
  const program = loadPtx(texKernel(fetch, opts.coordType), 't.ptx').program!;
  const n = coords.length;
  const launch = parseLaunch({
    kernel: 'k', grid: [1, 1, 1], block: [n, 1, 1],
    args: [{ name: 'tex', type: 'texture', ...tex }, { name: 'coords', type: 'u32', count: 2 * n }, { name: 'out', type: 'u32', count: 4 * n }],
    ...(opts.refs ? { textures: opts.refs } : {}),
  }, program, '.', 'L');
  const c = launch.args[1]!;
  if (c.kind !== 'buffer') throw new Error('coords is a buffer');
  const init = new DataView(new ArrayBuffer(8 * n));
  coords.forEach(([x, y], i) => {
    if (opts.coordType === 's32') { init.setInt32(8 * i, x!, true); init.setInt32(8 * i + 4, y ?? 0, true); }
    else { init.setFloat32(8 * i, x!, true); init.setFloat32(8 * i + 4, y ?? 0, true); }
  });
  c.init = new Uint8Array(init.buffer);
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  if (r.fault) throw new Error(r.fault.message);
  const b = m.buffers.find((x) => x.name === 'out')!;
  const dv = new DataView(m.arena.bank.u8.buffer, m.arena.bank.u8.byteOffset + b.alloc.base, 16 * n);
  return coords.map((_, i) => [0, 1, 2, 3].map((k) => (opts.ints ? dv.getInt32(16 * i + 4 * k, true) : dv.getFloat32(16 * i + 4 * k, true))));
}

const TEX2D = 'mov.f32 %f3, %f2; tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f3}]; mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;';
const TEX1D = 'tex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1}]; mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;';

describe('filtering', () => {
  test('linear 1D: fraction 0.8 is held as 205/256', () => {
    // x = 1.3 (unnormalized): 1.3 - 0.5 = 0.8 past texel 0 -> 0*(1 - 205/256) + 10*(205/256)
    const [[v, g, b, a]] = run(TEX1D, { format: 'float', extent: [4], value: [0, 10, 20, 30], filterMode: 'linear' }, [[1.3]]) as [number[]];
    expect(quantizeWeight(0.8)).toBe(205 / 256);
    expect(v).toBe(Math.fround(10 * 205 / 256)); // 8.0078125
    expect([g, b, a]).toEqual([0, 0, 1]); // a 1-channel texture: missing channels 0, alpha 1
  });

  test('linear 2D at the corner shared by four texels averages them; point picks the texel', () => {
    const img = { format: 'float', extent: [2, 2], value: [0, 1, 2, 3] };
    // (1, 1): 0.5 into both axes from texel (0,0): (0 + 1 + 2 + 3) / 4
    expect(run(TEX2D, { ...img, filterMode: 'linear' }, [[1, 1]])[0]![0]).toBe(1.5);
    // point at (1.7, 0.2): texel (1, 0)
    expect(run(TEX2D, img, [[1.7, 0.2]])[0]![0]).toBe(1);
  });

  test('address modes on normalized coordinates (width 4, texels 1 2 3 4)', () => {
    const base = { format: 'float', extent: [4], value: [1, 2, 3, 4], normalizedCoords: true };
    const xs = [[1.25], [-0.25], [0.6]];
    // 1.25*4 = 5, -0.25*4 = -1, 0.6*4 = 2.4
    expect(run(TEX1D, { ...base, addressMode: 'wrap' }, xs).map((r) => r[0])).toEqual([2, 4, 3]); // 5 mod 4 = 1, -1 mod 4 = 3
    expect(run(TEX1D, { ...base, addressMode: 'mirror' }, xs).map((r) => r[0])).toEqual([3, 1, 3]); // 5 -> 8-1-5 = 2, -1 -> 0
    expect(run(TEX1D, { ...base, addressMode: 'clamp' }, xs).map((r) => r[0])).toEqual([4, 1, 3]);
    expect(run(TEX1D, { ...base, addressMode: 'border', borderColor: [7, 7, 7, 7] }, xs).map((r) => r[0])).toEqual([7, 7, 3]);
    expect([addressIndex(-2, 4, 'mirror', true), addressIndex(9, 4, 'wrap', true), addressIndex(9, 4, 'wrap', false)]).toEqual([1, 1, 3]);
  });

  test('normalized-float reads of 8-bit formats; signed -128 reads as -1', () => {
    const u = run(TEX1D, { format: 'uchar', extent: [3], value: [0, 51, 255], readMode: 'normalizedFloat' }, [[0.5], [1.5], [2.5]]);
    expect(u.map((r) => r[0])).toEqual([0, Math.fround(51 / 255), 1]);
    const s = run(TEX1D, { format: 'char2', extent: [1], value: [-128, 127], readMode: 'normalizedFloat' }, [[0.5]]);
    expect(s[0]).toEqual([-1, 1, 0, 1]);
  });

  test('integer coordinates fetch texels exactly; outside the image they read 0', () => {
    const fetch = 'tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r2}];';
    const r = run(fetch, { format: 'int2', extent: [3], value: [5, -6, 7, -8, 9, -10] }, [[1], [2], [3], [-1]], { coordType: 's32', ints: true });
    expect(r).toEqual([[7, -8, 0, 1], [9, -10, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]);
  });

  test('a 2D layered texture: the first coordinate selects the layer', () => {
    const fetch = 'mov.f32 %f3, %f2; tex.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r9, %f1, %f3, %f3}]; mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;';
    // layer = thread index
    const k = fetch.replace('tex.a2d', 'mov.u32 %r9, %r1; tex.a2d');
    const r = run(k, { format: 'float', extent: [1, 1], layers: 3, value: [10, 20, 30] }, [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]);
    expect(r.map((x) => x[0])).toEqual([10, 20, 30]);
  });
});

test('tld4 gathers one channel of the bilinear footprint counter-clockwise from the lower left', () => {
  const fetch = 'mov.f32 %f3, %f2; tld4.g.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f3}]; mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;';
  // 2x2 float2 texels (r, g): g = 10 * (x + 2y); at (1, 1) the footprint is i = 0, j = 0
  const r = run(fetch, { format: 'float2', extent: [2, 2], value: [0, 0, 1, 10, 2, 20, 3, 30] }, [[1, 1]]);
  // (i, j+1) = (0,1): 20; (1,1): 30; (1,0): 10; (0,0): 0
  expect(r[0]).toEqual([20, 30, 10, 0]);
});

test('txq reports extent, the OpenCL channel type and order, and sampler settings', () => {
  const q = 'txq.width.b32 %r4, [%rd1]; txq.height.b32 %r5, [%rd1]; txq.channel_data_type.b32 %r6, [%rd1]; txq.normalized_coords.b32 %r7, [%rd1];';
  expect(run(q, { format: 'float4', extent: [5, 3], normalizedCoords: true }, [[0, 0]], { ints: true })[0]).toEqual([5, 3, 0x10de, 1]);
  const o = 'txq.channel_order.b32 %r4, [%rd1]; txq.filter_mode.b32 %r5, [%rd1]; txq.addr_mode_0.b32 %r6, [%rd1]; txq.channel_data_type.b32 %r7, [%rd1];';
  // uchar2 normalized: CL_RG, linear, wrap (0), CL_UNORM_INT8
  expect(run(o, { format: 'uchar2', extent: [2], filterMode: 'linear', addressMode: 'wrap', readMode: 'normalizedFloat' }, [[0, 0]], { ints: true })[0]).toEqual([0x10b2, 1, 0, 0x10d2]);
});

test('a .texref bound by the launch file\'s "textures"', () => {
  const fetch = 'tex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [tref, {%f1}]; mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;';
  const r = run(fetch, { format: 'float', extent: [1] }, [[1.5]], { refs: { tref: { type: 'texture', format: 'float', extent: [2], value: [4, 5] } } });
  expect(r[0]![0]).toBe(5);
});

test('cube maps: the major axis picks the face', () => {
  expect(cubeFace(1, 0, 0)).toEqual({ face: 0, s: 0.5, t: 0.5 });
  expect(cubeFace(0, -2, 1)).toEqual({ face: 3, s: 0.5, t: 0.25 }); // -y: sc = x, tc = -z
  expect(cubeFace(0.5, 0.25, -1)).toEqual({ face: 5, s: 0.25, t: 0.375 }); // -z: sc = -x, tc = -y
});

describe('surfaces', () => {
  const SURF = (body: string): string => `.version 8.0
.target sm_80
.address_size 64
.visible .entry s(.param .u64 surf)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [surf];
  ${body}
  ret;
}`;
  function surf(body: string, value: number[], extent = [3, 2]): { words: number[]; fault: string | undefined } {
    const program = loadPtx(SURF(body), 's.ptx').program!;
    const launch = parseLaunch({ kernel: 's', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'img', type: 'surface', format: 'uint', extent, value }] }, program, '.', 'L');
    const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
    const r = m.run();
    const b = m.buffers.find((x) => x.name === 'img')!;
    const u32 = new Uint32Array(m.arena.bank.u8.slice(b.alloc.base, b.alloc.base + b.count).buffer);
    return { words: Array.from(u32), fault: r.fault?.message };
  }

  test('sust.b then suld.b: x is in bytes, y in rows', () => {
    // store 42 at byte x 4 (element 1) of row 1, read it back into element (0, 0)
    const r = surf('mov.u32 %r1, 42; sust.b.2d.b32.trap [%rd1, {4, 1}], {%r1}; suld.b.2d.b32.trap {%r2}, [%rd1, {4, 1}]; add.u32 %r2, %r2, 1; sust.b.2d.b32.trap [%rd1, {0, 0}], {%r2};', [0, 0, 0, 0, 0, 0]);
    expect(r.words).toEqual([43, 0, 0, 0, 42, 0]);
  });

  test('out of range: .trap faults with the coordinates, .zero reads zeros and drops stores, .clamp uses the edge', () => {
    const t = surf('mov.u32 %r1, 1; sust.b.2d.b32.trap [%rd1, {12, 0}], {%r1};', [0, 0, 0, 0, 0, 0]);
    expect(t.fault).toMatch(/sust out of range on surface img: byte x 12, y 0/);
    const z = surf('mov.u32 %r1, 9; sust.b.2d.b32.zero [%rd1, {12, 0}], {%r1}; suld.b.2d.b32.zero {%r2}, [%rd1, {0, 5}]; sust.b.2d.b32.zero [%rd1, {0, 0}], {%r2};', [1, 1, 1, 1, 1, 1]);
    expect(z.words).toEqual([0, 1, 1, 1, 1, 1]);
    // clamp: byte x 100 -> last element (8), row 7 -> row 1
    const c = surf('suld.b.2d.b32.clamp {%r2}, [%rd1, {100, 7}]; sust.b.2d.b32.clamp [%rd1, {0, 0}], {%r2};', [0, 0, 0, 0, 0, 6]);
    expect(c.words[0]).toBe(6);
  });

  test('sured.b.add and .max', () => {
    const r = surf('mov.u32 %r1, 5; sured.b.add.2d.trap.u32 [%rd1, {0, 0}], %r1; sured.b.max.2d.trap.s32 [%rd1, {4, 0}], %r1;', [10, 0xfffffffe, 0, 0, 0, 0]);
    expect(r.words.slice(0, 2)).toEqual([15, 5]); // max(-2, 5) signed
  });
});

test('launch mistakes name the field', () => {
  const program = loadPtx(texKernel(TEX1D), 't.ptx').program!;
  const bad = (tex: Record<string, unknown>): string => {
    try {
      parseLaunch({ kernel: 'k', args: [{ name: 'tex', type: 'texture', ...tex }, { name: 'coords', type: 'u32', count: 2 }, { name: 'out', type: 'u32', count: 4 }] }, program, '.', 'L');
    } catch (e) {
      if (e instanceof LaunchError) return e.message;
      throw e;
    }
    return 'no error';
  };
  expect(bad({ format: 'float5', extent: [4] })).toMatch(/args\[0\] \(tex\): "format" must be one of/);
  expect(bad({ format: 'float', extent: [0] })).toMatch(/"extent" must be/);
  expect(bad({ format: 'float', extent: [4], value: [1, 2] })).toMatch(/"value" must be 4 numbers/);
  expect(bad({ format: 'float', extent: [4], addressMode: 'bounce' })).toMatch(/"addressMode" must be clamp, wrap, mirror or border/);
});

test('a recording with texture and surface images survives a trace file and replays the same', () => {
  const ptx = texKernel(TEX2D);
  const program = loadPtx(ptx, 't.ptx').program!;
  const launch = parseLaunch({
    kernel: 'k', grid: [1, 1, 1], block: [2, 1, 1],
    args: [{ name: 'tex', type: 'texture', format: 'half2', extent: [2, 2], value: [0, 1, 2, 3, 4, 5, 6, 7], filterMode: 'linear' }, { name: 'coords', type: 'u32', count: 4 }, { name: 'out', type: 'u32', count: 8 }],
    textures: { tref: { type: 'texture', format: 'float', extent: [2], value: [4, 5] } },
  }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const t = Trace.record(m);
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-tex-'));
  try {
    const file = join(dir, 'r.ptxtrace');
    writeTraceFile(file, t, 't.ptx', ptx, launch, { schedule: 'rr', seed: 1, maxSteps: DEFAULT_RUN_OPTIONS.maxSteps });
    const back = readTraceFile(file);
    expect(launchToJson(back.launch)).toBe(launchToJson(launch));
    const again = Trace.record(new Machine(program, back.launch, DEFAULT_RUN_OPTIONS));
    expect(again.total).toBe(t.total);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('half results: .v2.f16x2 packs (r, g) and (b, a) with the first channel low; .v4.f16 one channel per 16-bit register', () => {
  // float4 texel (1.5, -2, 0.1, 65536): f16 bits 0x3E00, 0xC000, 0x2E66 (0.0999755859375, nearest to 0.1),
  // and 65536 is past the largest half (65504), which rounds to +inf 0x7C00
  const tex = { format: 'float4', extent: [1], value: [1.5, -2, 0.1, 65536] };
  const packed = run('tex.1d.v2.f16x2.f32 {%r4, %r5}, [%rd1, {%f1}]; mov.b32 %r6, 0; mov.b32 %r7, 0;', tex, [[0.5]], { ints: true })[0]!;
  expect(packed.map((x) => x >>> 0)).toEqual([0xc0003e00, 0x7c002e66, 0, 0]);
  const each = run(`.reg .b16 %h<4>;
    tex.1d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd1, {%f1}];
    cvt.u32.u16 %r4, %h0; cvt.u32.u16 %r5, %h1; cvt.u32.u16 %r6, %h2; cvt.u32.u16 %r7, %h3;`, tex, [[0.5]], { ints: true })[0]!;
  expect(each).toEqual([0x3e00, 0xc000, 0x2e66, 0x7c00]);
});
