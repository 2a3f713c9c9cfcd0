/**
 * Module-scope .samplerref / .texref initializers (PTX ISA, "Texture Sampler and Surface Types"):
 * `{ addr_mode_0 = clamp_to_border, filter_mode = nearest }` sets how the reference samples when the
 * launch binds no sampler of its own; names and values the ISA does not define are located errors.
 */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

const samplers = `.global .samplerref border = { addr_mode_0 = clamp_to_border, filter_mode = nearest };
.global .samplerref plain;
.global .samplerref wrapped = { addr_mode_0 = wrap, normalized_coords = 1 };`;

/** Thread t fetches tref through sampler `s` at x = coords[t]; returns the red channel per thread. */
function fetch(s: string, coords: number[], refs: Record<string, unknown> = {}): number[] {
  const src = `.version 8.0
.target sm_80, texmode_independent
.address_size 64
.global .texref tref;
${samplers}
.visible .entry k(.param .u64 coords, .param .u64 out)
{
  .reg .f32 %f<8>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [coords]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tref, ${s}, {%f1}];
  st.global.f32 [%rd5], %f2;
  ret;
}`;
  const loaded = loadPtx(src, 'init.ptx');
  if (!loaded.program) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  const n = coords.length;
  const launch = parseLaunch({
    kernel: 'k', grid: [1, 1, 1], block: [n, 1, 1],
    args: [{ name: 'coords', type: 'f32', count: n }, { name: 'out', type: 'f32', count: n }],
    textures: { tref: { type: 'texture', format: 'float', extent: [4], value: [10, 20, 30, 40] }, ...refs },
  }, loaded.program, '.', 'L');
  const c = launch.args[0]!;
  if (c.kind !== 'buffer') throw new Error('coords is a buffer');
  c.init = new Uint8Array(Float32Array.from(coords).buffer);
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  if (r.fault) throw new Error(r.fault.message);
  const b = m.buffers.find((x) => x.name === 'out')!;
  return Array.from(new Float32Array(m.arena.bank.u8.slice(b.alloc.base, b.alloc.base + 4 * n).buffer));
}

test('clamp_to_border: coordinates outside the image read the border (0); inside, nearest texel', () => {
  // texels 10, 20, 30, 40 at x in [0,1), [1,2), ...: x = 1.5 is texel 1
  expect(fetch('border', [-1, 5, 1.5])).toEqual([0, 0, 20]);
});

test('a .samplerref without an initializer clamps to the edge (the default)', () => {
  expect(fetch('plain', [-1, 5, 1.5])).toEqual([10, 40, 20]);
});

test('wrap with normalized coordinates: u = 1.25 is texel 5 mod 4 = 1, u = -0.25 is texel -1 mod 4 = 3', () => {
  expect(fetch('wrapped', [1.25, -0.25, 0.5])).toEqual([20, 40, 30]);
});

test('a sampler the launch binds wins over the initializer', () => {
  expect(fetch('border', [-1, 5], { border: { type: 'sampler', addressMode: 'clamp' } })).toEqual([10, 40]);
});

test('fields the ISA does not define, bad values and image fields are located errors', () => {
  const bad = `.version 8.0
.target sm_80
.address_size 64
.global .samplerref a = { filter_mode = bilinear };
.global .samplerref b = { addr_mode_3 = wrap };
.global .texref t = { width = 64 };
.global .surfref s = { filter_mode = nearest };
`;
  const d = loadPtx(bad, 'bad.ptx').diagnostics.filter((x) => x.severity === 'error');
  const line = (at: number): number => bad.slice(0, at).split('\n').length;
  expect(d.map((x) => [line(x.span.start), x.message])).toEqual([
    [4, "filter_mode must be nearest or linear, not 'bilinear'"],
    [5, "unknown .samplerref field 'addr_mode_3' (filter_mode, addr_mode_0..2, normalized_coords, force_unnormalized_coords)"],
    [6, 'width describes the image, which the launch gives (see the launch file\'s "textures"); an initializer sets only sampling fields'],
    [7, "a .surfref takes no initializer field ('filter_mode'): its image comes from the launch"],
  ]);
});
