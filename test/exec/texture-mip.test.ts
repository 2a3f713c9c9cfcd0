/**
 * Mip levels: a launch texture with `"levels": N` (level 0 first, each level half the one
 * before), tex.level (explicit LOD), tex.grad (LOD = log2 of the longer texel-space gradient),
 * mipmapFilterMode point / linear, txq.num_mipmap_levels and txq.level.width. Expected values are
 * worked out by hand next to each check from the texels the test writes.
 */
import { LaunchError, parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

const f32 = (x: number): string => `0f${new Uint32Array(new Float32Array([x]).buffer)[0]!.toString(16).padStart(8, '0').toUpperCase()}`;

const KERNEL = (body: string): string => `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 tex, .param .u64 out)
{
  .reg .f32 %f<16>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex]; ld.param.u64 %rd2, [out];
  ${body}
  st.global.v4.b32 [%rd2], {%r4, %r5, %r6, %r7};
  ret;
}`;

// 4x4 float texture, 3 levels: level 0 texel (x, y) = x + 4y; level 1 (2x2) = 20 + x + 2y; level 2 (1x1) = 50
const LEVEL0 = Array.from({ length: 16 }, (_, i) => i);
const LEVEL1 = [20, 21, 22, 23];
const LEVEL2 = [50];
const TEX = { format: 'float', extent: [4, 4], levels: 3, value: [...LEVEL0, ...LEVEL1, ...LEVEL2], normalizedCoords: true };

/** Runs `body` (which leaves four result words in %r4..%r7); returns them as floats or ints. */
function run(body: string, tex: Record<string, unknown> = TEX, ints = false): number[] {
  const program = loadPtx(KERNEL(body), 'mip.ptx').program!;
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'tex', type: 'texture', ...tex }, { name: 'out', type: 'u32', count: 4 }] }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  if (r.fault) throw new Error(r.fault.message);
  const b = m.buffers.find((x) => x.name === 'out')!;
  const dv = new DataView(m.arena.bank.u8.buffer, m.arena.bank.u8.byteOffset + b.alloc.base, 16);
  return [0, 1, 2, 3].map((k) => (ints ? dv.getInt32(4 * k, true) : dv.getFloat32(4 * k, true)));
}

/** R of tex.level at normalized (x, y) with `lod`. */
const atLod = (x: number, y: number, lod: number, tex: Record<string, unknown> = TEX): number =>
  run(`mov.f32 %f1, ${f32(x)}; mov.f32 %f2, ${f32(y)}; mov.f32 %f3, ${f32(lod)};
    tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3;
    mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;`, tex)[0]!;

describe('tex.level', () => {
  // (0.6, 0.1): level 0 texel (floor(2.4), floor(0.4)) = (2, 0) -> 2; level 1 (floor(1.2), floor(0.2)) = (1, 0) -> 21; level 2 -> 50
  test('picks the nearest level (ties up), clamped to the levels the image has', () => {
    expect(atLod(0.6, 0.1, 0)).toBe(2);
    expect(atLod(0.6, 0.1, 1)).toBe(21);
    expect(atLod(0.6, 0.1, 1.4)).toBe(21);
    expect(atLod(0.6, 0.1, 1.5)).toBe(50);
    expect(atLod(0.6, 0.1, 2)).toBe(50);
    expect(atLod(0.6, 0.1, 9)).toBe(50);
    expect(atLod(0.6, 0.1, -3)).toBe(2);
    // level 1 at (0.9, 0.9): texel (1, 1) -> 23
    expect(atLod(0.9, 0.9, 1)).toBe(23);
  });

  test('mipmapFilterMode linear blends the two levels around the LOD', () => {
    const lin = { ...TEX, mipmapFilterMode: 'linear' };
    expect(atLod(0.6, 0.1, 1.5, lin)).toBe(0.5 * 21 + 0.5 * 50);
    expect(atLod(0.6, 0.1, 0.25, lin)).toBe(0.75 * 2 + 0.25 * 21);
    expect(atLod(0.6, 0.1, 1, lin)).toBe(21);
  });

  test('an image without levels reads level 0 at any LOD', () => {
    expect(atLod(0.6, 0.1, 2, { format: 'float', extent: [4, 4], value: LEVEL0, normalizedCoords: true })).toBe(2);
  });

  test('unnormalized coordinates read level 0 only', () => {
    // texel (2, 0) of level 0 at any LOD
    expect(atLod(2.5, 0.5, 1, { ...TEX, normalizedCoords: false })).toBe(2);
  });
});

describe('tex.grad', () => {
  const grad = (dx: [number, number], dy: [number, number]): number =>
    run(`mov.f32 %f1, ${f32(0.6)}; mov.f32 %f2, ${f32(0.1)};
      mov.f32 %f8, ${f32(dx[0])}; mov.f32 %f9, ${f32(dx[1])}; mov.f32 %f10, ${f32(dy[0])}; mov.f32 %f11, ${f32(dy[1])};
      tex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], {%f8, %f9}, {%f10, %f11};
      mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;`)[0]!;
  test('LOD = log2 of the longer gradient in texels', () => {
    // dPdx (0.5, 0) is 2 texels, dPdy (0, 0.25) 1: log2 2 = 1 -> level 1 -> 21
    expect(grad([0.5, 0], [0, 0.25])).toBe(21);
    // (0.6, 0.8) * 4 = (2.4, 3.2): length 4 -> LOD 2 -> 50
    expect(grad([0, 0], [0.6, 0.8])).toBe(50);
    // 1/8 is half a texel: LOD -1 -> level 0 -> 2
    expect(grad([0.125, 0], [0, 0])).toBe(2);
  });
});

test('txq.num_mipmap_levels and txq.level.width/height', () => {
  const r = run(`txq.num_mipmap_levels.b32 %r4, [%rd1]; mov.b32 %r9, 1; txq.level.width.b32 %r5, [%rd1], %r9;
    mov.b32 %r9, 2; txq.level.height.b32 %r6, [%rd1], %r9; txq.width.b32 %r7, [%rd1];`, TEX, true);
  // 3 levels; level 1 is 2 wide, level 2 is 1 high; level 0 is 4 wide
  expect(r).toEqual([3, 2, 1, 4]);
  const one = run('txq.num_mipmap_levels.b32 %r4, [%rd1]; mov.b32 %r5, 0; mov.b32 %r6, 0; mov.b32 %r7, 0;', { format: 'float', extent: [8] }, true);
  expect(one[0]).toBe(1);
});

test('launch mistakes about levels name the field', () => {
  const program = loadPtx(KERNEL('mov.b32 %r4, 0;'), 'mip.ptx').program!;
  const bad = (tex: Record<string, unknown>): string => {
    try {
      parseLaunch({ kernel: 'k', args: [{ name: 'tex', ...tex }, { name: 'out', type: 'u32', count: 4 }] }, program, '.', 'L');
    } catch (e) {
      if (e instanceof LaunchError) return e.message;
      throw e;
    }
    return 'no error';
  };
  // 4x4: levels 4x4, 2x2, 1x1 -> at most 3
  expect(bad({ type: 'texture', format: 'float', extent: [4, 4], levels: 4 })).toMatch(/"levels" must be an integer 1\.\.3/);
  expect(bad({ type: 'surface', format: 'float', extent: [4, 4], levels: 2 })).toMatch(/"levels" must be 1 for a surface/);
  // the values cover every level: 16 + 4 + 1 texels
  expect(bad({ type: 'texture', format: 'float', extent: [4, 4], levels: 3, value: LEVEL0 })).toMatch(/"value" must be 21 numbers/);
  expect(bad({ type: 'texture', format: 'float', extent: [4, 4], mipmapFilterMode: 'cubic' })).toMatch(/"mipmapFilterMode" must be "point" or "linear"/);
});

describe('tex.grad on a cube map', () => {
  // 4x4 faces, 3 levels; every texel of face f at level L reads 100 L + 10 f (level 0: 6 x 16
  // texels, level 1: 6 x 4, level 2: 6 x 1, faces in order +x -x +y -y +z -z)
  const value = [0, 1, 2].flatMap((L) => Array.from({ length: 6 * (4 >> L) ** 2 }, (_, i) => 100 * L + 10 * Math.floor(i / (4 >> L) ** 2)));
  const CUBE = { format: 'float', extent: [4, 4], cube: true, levels: 3, value, normalizedCoords: true };
  /** R of tex.grad.cube at direction p with gradients dx, dy. */
  const grad = (p: number[], dx: number[], dy: number[]): number => run(`mov.f32 %f1, ${f32(p[0]!)}; mov.f32 %f2, ${f32(p[1]!)}; mov.f32 %f3, ${f32(p[2]!)};
    mov.f32 %f8, ${f32(dx[0]!)}; mov.f32 %f9, ${f32(dx[1]!)}; mov.f32 %f10, ${f32(dx[2]!)};
    mov.f32 %f11, ${f32(dy[0]!)}; mov.f32 %f12, ${f32(dy[1]!)}; mov.f32 %f13, ${f32(dy[2]!)}; mov.f32 %f14, 0f00000000;
    tex.grad.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f14}], {%f8, %f9, %f10, %f14}, {%f11, %f12, %f13, %f14};
    mov.b32 %r4, %f4; mov.b32 %r5, %f5; mov.b32 %r6, %f6; mov.b32 %r7, %f7;`, CUBE)[0]!;

  test('the face coordinates\' gradients, in texels of the face, give the level', () => {
    // p = (1, 0, 0): face +x, s = (-z/x + 1)/2, so dz = 1 moves s by 1/2 = 2 texels: LOD 1, face 0 -> 100
    expect(grad([1, 0, 0], [0, 0, 1], [0, 0, 0])).toBe(100);
    // dz = 0.25: half a texel, LOD -1, clamped to level 0
    expect(grad([1, 0, 0], [0, 0, 0.25], [0, 0, 0])).toBe(0);
    // dy = 2 on face +x (t = (-y/x + 1)/2): 4 texels, LOD 2
    expect(grad([1, 0, 0], [0, 0, 0], [0, 2, 0])).toBe(200);
    // p = (2, 0, 0): the same dz moves s half as far (quotient rule): 1 texel, LOD 0
    expect(grad([2, 0, 0], [0, 0, 1], [0, 0, 0])).toBe(0);
    // p = (0, 0, -1): face -z (5), s = (-x/|z| + 1)/2: dx = 1 gives 2 texels, LOD 1
    expect(grad([0, 0, -1], [1, 0, 0], [0, 0, 0])).toBe(150);
  });
});
