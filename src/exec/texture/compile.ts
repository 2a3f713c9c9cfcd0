/**
 * The texture and surface instructions: tex (1d, 2d, 3d, a1d, a2d, cube, acube; float and
 * integer coordinates; .level/.grad pick mip levels, sample.ts sampleLod), tld4,
 * txq and istypep on texture handles, and suld.b / sust.b / sured.b / suq on surfaces with the
 * .trap / .clamp / .zero out-of-range modes, and the formatted sust.p / sured.p. Images come from the launch (src/exec/texture/image.ts);
 * surface accesses go through the global memory path, so they are recorded and race-checked.
 */
import type { Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import { Fault } from '../fault.js';
import { GLOBAL_HI, Space } from '../memory.js';
import { Access } from '../probe.js';
import type { Warp } from '../state.js';
import type { ROperand } from '../../ptx/resolve.js';
import { toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import { DEFAULT_SAMPLER, type Image, levelExtent, type Sampler, texelBytes } from './image.js';
import { withFields } from './spec.js';
import { cubeFace, fetch, fetchLevel, gather, lodOfCubeGradients, lodOfGradients, type Rgba, rowPitch, sampleLod } from './sample.js';

const F = new Float32Array(1);
const U = new Uint32Array(F.buffer);
const bitsOf = (x: number): number => { F[0] = x; return U[0]!; };
const floatOf = (u: number): number => { U[0] = u; return F[0]!; };
const OUT: Rgba = [0, 0, 0, 0];

/** How the instruction names its image: a 64-bit handle register, or a module `.texref`/`.surfref`. */
function imageOperand(ctx: Ctx, op: ROperand | undefined, what: string): (w: Warp, lane: number) => Image {
  if (op?.kind === 'var') {
    const name = op.v.name;
    return (w) => {
      const img = w.mem.images?.byRef(name);
      if (!img) throw new Fault('invalid', `${what} ${name} is not bound to an image: give it in the launch file's "textures"`);
      return img;
    };
  }
  if (op?.kind !== 'reg') return fail(ctx, `${what}: expected a handle register or a texture/surface reference`);
  const slot = src(ctx, op, 'b64');
  return (w, l) => {
    const lo = w.u32[slot + 2 * l]!, hi = w.u32[slot + 2 * l + 1]!;
    const img = w.mem.images?.byHandle(lo, hi);
    if (!img) {
      const f = new Fault('invalid', `${what} handle 0x${((BigInt(hi) << 32n) | BigInt(lo)).toString(16)} names no ${what} object`);
      f.lane = l;
      throw f;
    }
    return img;
  };
}

function items(op: ROperand | undefined): readonly ROperand[] {
  return op?.kind === 'vec' || op?.kind === 'list' ? op.items : op ? [op] : [];
}

/** `[%rd1]` and the first element of `[%rd1, {...}]` parse as addresses: the handle is their base. */
function unwrap(op: ROperand | undefined): ROperand | undefined {
  return op?.kind === 'addr' && op.offset === 0n ? op.base : op;
}

/** `[a, c]` or `[a, b, c]`: image, optional sampler, coordinate vector. */
function bracket(ctx: Ctx, op: ROperand | undefined): { image: ROperand | undefined; sampler: ROperand | undefined; coords: readonly ROperand[] } {
  const it = items(op);
  if (it.length === 1) return { image: unwrap(it[0]), sampler: undefined, coords: [] };
  if (it.length === 2) return { image: unwrap(it[0]), sampler: undefined, coords: items(it[1]) };
  if (it.length === 3) return { image: unwrap(it[0]), sampler: unwrap(it[1]), coords: items(it[2]) };
  return fail(ctx, `${ctx.ins.opcode}: expected [image, coordinates] or [image, sampler, coordinates]`);
}

function samplerOperand(ctx: Ctx, op: ROperand | undefined): ((w: Warp) => Sampler) | undefined {
  if (!op) return undefined;
  if (op.kind !== 'var') return fail(ctx, `${ctx.ins.opcode}: an explicit sampler must be a .samplerref`);
  const name = op.v.name;
  // a sampler the launch binds wins; else the module's initializer; else the defaults
  const declared = op.v.decl.fields ? withFields(DEFAULT_SAMPLER, op.v.decl.fields) : DEFAULT_SAMPLER;
  return (w) => w.mem.images?.samplerByRef(name) ?? declared;
}

const GEOMS = ['1d', '2d', '3d', 'a1d', 'a2d', 'cube', 'acube', '2dms', 'a2dms'];

export function compileTexture(ctx: Ctx): Exec {
  switch (ctx.ins.opcode) {
    case 'tex': return compileTex(ctx, false);
    case 'tld4': return compileTex(ctx, true);
    case 'txq': case 'suq': return compileQuery(ctx);
    case 'istypep': return compileIstypep(ctx);
    case 'suld': case 'sust': case 'sured': return compileSurface(ctx);
    default: return fail(ctx, `'${ctx.ins.opcode}' is not a texture instruction`);
  }
}

function compileTex(ctx: Ctx, isGather: boolean): Exec {
  const ins = ctx.ins;
  const mods = ins.mods;
  const what = `'${[ins.opcode, ...mods].join('.')}'`;
  const geom = mods.find((m) => GEOMS.includes(m));
  if (!geom) return fail(ctx, `${what} needs a geometry (.1d .2d .3d .a1d .a2d .cube .acube)`);
  if (geom.endsWith('ms')) return fail(ctx, `${what}: multisample textures are not supported (images have one sample)`);
  // half results: .v4.f16 (a 16-bit register per channel) or .v2.f16x2 (r,g then b,a packed,
  // the first channel in the low half), each rounded to nearest even from the f32 result
  const half = mods.includes('f16x2') ? 'f16x2' : mods.includes('f16') ? 'f16' : undefined;
  if (half === 'f16x2' && !mods.includes('v2')) return fail(ctx, `${what}: .f16x2 results take a .v2 destination`);
  const dtype = half ?? (mods.includes('s32') && mods.indexOf('s32') < mods.length - 1 ? 's32' : mods.includes('u32') ? 'u32' : 'f32');
  const ctype = mods[mods.length - 1] === 's32' ? 's32' : 'f32';
  const comp = isGather ? ['r', 'g', 'b', 'a'].findIndex((x) => mods.includes(x)) : 0;
  if (isGather && (comp < 0 || geom !== '2d' && geom !== 'a2d' && geom !== 'cube' && geom !== 'acube')) return fail(ctx, `${what}: tld4 needs .r/.g/.b/.a and a 2d geometry`);
  const ops = ins.operands;
  const dest = items(ops[0]?.kind === 'pair' ? ops[0].a : ops[0]);
  const want = half === 'f16x2' ? 2 : 4;
  if (dest.length !== want) return fail(ctx, `${what}: expected a ${want}-register destination vector`);
  const D = dest.map((d) => (d.kind === 'sink' ? -1 : dst(ctx, d)));
  const pred = ops[0]?.kind === 'pair' ? dst(ctx, ops[0].b) : -1;
  // ISA 1.x writes the texture and the coordinates as two operands: tex.1d.v4.s32.f32 d, tex_a, {f1}
  const br = ops.length === 3 && ops[1]?.kind !== 'list' ? { image: unwrap(ops[1]), sampler: undefined, coords: items(ops[2]) } : bracket(ctx, ops[1]);
  const image = imageOperand(ctx, br.image, 'texture');
  const sampler = samplerOperand(ctx, br.sampler);
  const layered = geom === 'a1d' || geom === 'a2d' || geom === 'acube';
  const need = (geom === '1d' ? 1 : geom === '2d' ? 2 : 3) + (layered ? 1 : 0);
  if (br.coords.length < need) return fail(ctx, `${what}: expected ${need} coordinate(s)`);
  // array index first (an s32), then the coordinates
  const C = br.coords.map((o, i) => src(ctx, o, layered && i === 0 ? 's32' : ctype === 's32' ? 's32' : 'f32'));
  const nc = geom === '1d' || geom === 'a1d' ? 1 : geom === '2d' || geom === 'a2d' ? 2 : 3;
  const coords: [number, number, number] = [0, 0, 0];
  // .level: an f32 level of detail; .grad: dP/dx and dP/dy vectors (PTX ISA, tex "mipmaps")
  const isCube = geom === 'cube' || geom === 'acube';
  const lodSlot = mods.includes('level') ? src(ctx, ops[2], 'f32') : -1;
  let gx: number[] = [], gy: number[] = [];
  if (mods.includes('grad')) {
    const dx = items(ops[2]), dy = items(ops[3]);
    if (dx.length < nc || dy.length < nc) return fail(ctx, `${what}: expected dPdx and dPdy vectors of ${nc} component(s)`);
    gx = dx.slice(0, nc).map((o) => src(ctx, o, 'f32'));
    gy = dy.slice(0, nc).map((o) => src(ctx, o, 'f32'));
  }
  const grad = gx.length > 0;
  const DX = [0, 0, 0], DY = [0, 0, 0];
  return (w: Warp, m: number) => {
    const u = w.u32;
    const bank = w.mem.global.bank;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const img = image(w, l);
      const s = sampler ? sampler(w) : img.sampler;
      const layer = layered ? Math.max(0, Math.min(img.layers - 1, u[C[0]! + 2 * l]! | 0)) : 0;
      const base = layered ? 1 : 0;
      for (let k = 0; k < nc; k++) {
        const bits = u[C[base + k]! + 2 * l]!;
        coords[k] = ctype === 's32' ? bits | 0 : floatOf(bits);
      }
      let lod = 0;
      if (lodSlot >= 0) lod = floatOf(u[lodSlot + 2 * l]!);
      else if (grad) {
        for (let k = 0; k < nc; k++) { DX[k] = floatOf(u[gx[k]! + 2 * l]!); DY[k] = floatOf(u[gy[k]! + 2 * l]!); }
        lod = isCube ? lodOfCubeGradients(img, coords, DX, DY) : lodOfGradients(img, nc, DX, DY, s.normalized);
      }
      if (isCube) {
        const f = cubeFace(coords[0], coords[1], coords[2]);
        const cs: Sampler = { ...s, normalized: true, address: ['clamp', 'clamp', 'clamp'] };
        if (isGather) gather(bank, img, cs, f.s, f.t, layer * 6 + f.face, comp, OUT);
        else sampleLod(bank, img, cs, [f.s, f.t, 0], layer * 6 + f.face, lod, OUT);
      } else if (isGather) gather(bank, img, s, coords[0], coords[1], layer, comp, OUT);
      else if (ctype === 's32') fetch(bank, img, s, coords, layer, OUT, fetchLevel(img, lod));
      else sampleLod(bank, img, s, coords, layer, lod, OUT);
      if (dtype === 'f16x2') {
        for (let k = 0; k < 2; k++) if (D[k]! >= 0) u[D[k]! + 2 * l] = (toF16(OUT[2 * k]!, RN) | (toF16(OUT[2 * k + 1]!, RN) << 16)) >>> 0;
      } else {
        for (let k = 0; k < 4; k++) {
          if (D[k]! < 0) continue;
          const v = OUT[k]!;
          u[D[k]! + 2 * l] = dtype === 'f32' ? bitsOf(v) : dtype === 'f16' ? toF16(v, RN) : dtype === 's32' ? Math.trunc(v) | 0 : Math.trunc(v) >>> 0;
        }
      }
      if (pred >= 0) w.i32[pred + 2 * l] = 1; // every texel is resident
    }
  };
}

/** OpenCL channel data type and order codes, which txq/suq report (as NVIDIA's driver does). */
function channelDataType(img: Image): number {
  const f = img.format;
  const norm = img.sampler.readMode === 'normalizedFloat' && f.kind !== 'float' && f.bits < 32;
  if (f.kind === 'float') return f.bits === 16 ? 0x10dd : 0x10de;
  if (norm) return f.kind === 'signed' ? (f.bits === 8 ? 0x10d0 : 0x10d1) : f.bits === 8 ? 0x10d2 : 0x10d3;
  const base = f.kind === 'signed' ? 0x10d7 : 0x10da;
  return base + (f.bits === 8 ? 0 : f.bits === 16 ? 1 : 2);
}

const ADDR_CODE = { wrap: 0, mirror: 1, clamp: 2, border: 3 } as const;

function compileQuery(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const q = ins.mods.find((m) => m !== 'b32' && m !== 'level');
  const what = `'${[ins.opcode, ...ins.mods].join('.')}'`;
  const D = dst(ctx, ins.operands[0]);
  const br = bracket(ctx, ins.operands[1]);
  const image = imageOperand(ctx, br.image, ins.opcode === 'suq' ? 'surface' : 'texture');
  // txq.level.{width,height,depth} d, [a], lod: the extent of mip level lod
  const atLevel = ins.opcode === 'txq' && ins.mods.includes('level');
  if (atLevel && q !== 'width' && q !== 'height' && q !== 'depth') return fail(ctx, `${what}: .level goes with .width, .height or .depth`);
  const lodSlot = atLevel ? src(ctx, ins.operands[2], 's32') : -1;
  let lod = 0;
  const ext = (i: Image, d: number): number => levelExtent(i, Math.max(0, Math.min(31, lod)))[d]!;
  const pick = ((): ((img: Image) => number) | undefined => {
    switch (q) {
      case 'width': return (i) => (ins.opcode === 'suq' ? i.width * texelBytes(i.format) : ext(i, 0));
      case 'height': return (i) => (i.dims >= 2 || i.cube ? ext(i, 1) : 1);
      case 'depth': return (i) => (i.dims >= 3 ? ext(i, 2) : 1);
      case 'channel_data_type': return channelDataType;
      case 'channel_order': return (i) => (i.format.channels === 1 ? 0x10b0 : i.format.channels === 2 ? 0x10b2 : 0x10b5);
      case 'normalized_coords': return (i) => (i.sampler.normalized ? 1 : 0);
      case 'filter_mode': return (i) => (i.sampler.filter === 'linear' ? 1 : 0);
      case 'addr_mode_0': return (i) => ADDR_CODE[i.sampler.address[0]];
      case 'addr_mode_1': return (i) => ADDR_CODE[i.sampler.address[1]];
      case 'addr_mode_2': return (i) => ADDR_CODE[i.sampler.address[2]];
      case 'array_size': return (i) => i.layers;
      case 'num_mipmap_levels': return (i) => i.levels ?? 1;
      case 'num_samples': return () => 1;
      case 'memory_layout': return () => 0;
      default: return undefined;
    }
  })();
  if (!pick) return fail(ctx, `${what}: unknown query`);
  return (w: Warp, m: number) => {
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      if (lodSlot >= 0) lod = w.i32[lodSlot + 2 * l]!;
      w.u32[D + 2 * l] = pick(image(w, l)) >>> 0;
    }
  };
}

function compileIstypep(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const want = ins.mods.includes('texref') ? 'texture' : ins.mods.includes('surfref') ? 'surface' : ins.mods.includes('samplerref') ? 'sampler' : undefined;
  if (!want) return fail(ctx, `'istypep.${ins.mods.join('.')}' needs .texref, .samplerref or .surfref`);
  const P = dst(ctx, ins.operands[0]);
  const A = src(ctx, ins.operands[1], 'b64');
  return (w: Warp, m: number) => {
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const img = w.mem.images?.byHandle(w.u32[A + 2 * l]!, w.u32[A + 2 * l + 1]!);
      w.i32[P + 2 * l] = img && img.kind === want ? 1 : 0;
    }
  };
}

/**
 * suld.b / sust.b / sured.b: x is a byte coordinate, y and z (and the array index) count rows,
 * slices and layers. Out of range: .trap faults, .clamp moves to the nearest texel, .zero loads
 * zeros and drops stores.
 */
function compileSurface(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const op = ins.opcode;
  const mods = ins.mods;
  const what = `'${[op, ...mods].join('.')}'`;
  if (mods.includes('p')) return compileFormatted(ctx);
  const geom = mods.find((m) => GEOMS.includes(m));
  if (!geom || geom === 'cube' || geom === 'acube' || geom.endsWith('ms')) return fail(ctx, `${what} needs .1d .2d .3d .a1d or .a2d`);
  const mode = mods.includes('zero') ? 'zero' : mods.includes('clamp') ? 'clamp' : 'trap';
  const vec = mods.includes('v4') ? 4 : mods.includes('v2') ? 2 : 1;
  const elem = op === 'sured'
    ? (mods.some((x) => x.endsWith('64')) ? 8 : 4)
    : mods.includes('b8') ? 1 : mods.includes('b16') ? 2 : mods.includes('b64') ? 8 : mods.includes('b32') ? 4 : fail(ctx, `${what} needs .b8 .b16 .b32 or .b64`);
  const size = elem * vec;
  const layered = geom === 'a1d' || geom === 'a2d';
  const nc = (geom === '1d' || geom === 'a1d' ? 1 : geom === '2d' || geom === 'a2d' ? 2 : 3) + (layered ? 1 : 0);
  const ops = ins.operands;
  const br = bracket(ctx, op === 'suld' ? ops[1] : ops[0]);
  if (br.coords.length < nc) return fail(ctx, `${what}: expected ${nc} coordinate(s)`);
  const image = imageOperand(ctx, br.image, 'surface');
  const C = br.coords.slice(0, nc).map((o) => src(ctx, o, 's32'));
  const data = items(op === 'suld' ? ops[0] : ops[1]);
  if (data.length !== vec) return fail(ctx, `${what}: expected ${vec} data register(s)`);
  const R = data.map((d) => (op === 'suld' ? dst(ctx, d) : src(ctx, d, elem === 8 ? 'b64' : 'b32')));
  const redOp = op === 'sured' ? ['add', 'min', 'max', 'and', 'or'].find((x) => mods.includes(x)) : undefined;
  if (op === 'sured' && !redOp) return fail(ctx, `${what} needs .add .min .max .and or .or`);
  const signed = mods.includes('s32') || mods.includes('s64');
  return (w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const img = image(w, l);
      const base = layered ? 1 : 0;
      let x = u[C[base]! + 2 * l]! | 0;
      let y = nc - base > 1 ? u[C[base + 1]! + 2 * l]! | 0 : 0;
      let z = nc - base > 2 ? u[C[base + 2]! + 2 * l]! | 0 : 0;
      let layer = layered ? u[C[0]! + 2 * l]! | 0 : 0;
      const pitch = img.width * texelBytes(img.format);
      const out = x < 0 || x + size > pitch || y < 0 || y >= img.height || z < 0 || z >= img.depth || layer < 0 || layer >= img.layers;
      if (out) {
        if (mode === 'trap') {
          const f = new Fault('oob', `${op} out of range on surface ${img.name}: byte x ${x}, y ${y}, z ${z}${layered ? `, layer ${layer}` : ''} (surface ${pitch} bytes x ${img.height} x ${img.depth}${layered ? ` x ${img.layers} layers` : ''}, .trap)`);
          f.lane = l;
          throw f;
        }
        if (mode === 'zero') {
          if (op === 'suld') for (let k = 0; k < vec; k++) { u[R[k]! + 2 * l] = 0; u[R[k]! + 2 * l + 1] = 0; }
          continue;
        }
        x = Math.max(0, Math.min(pitch - size, x)); x -= x % size;
        y = Math.max(0, Math.min(img.height - 1, y));
        z = Math.max(0, Math.min(img.depth - 1, z));
        layer = Math.max(0, Math.min(img.layers - 1, layer));
      }
      const addr = img.base + ((layer * img.depth + z) * img.height + y) * rowPitch(img) + x;
      const acc = op === 'suld' ? Access.Read : op === 'sured' ? Access.Atomic : Access.Write;
      const idx = w.translate(Space.Global, addr, GLOBAL_HI, elem, l, acc);
      const b = w.xbank.u8;
      for (let k = 0; k < vec; k++) {
        const o = idx + k * elem;
        if (k > 0) w.translate(Space.Global, addr + k * elem, GLOBAL_HI, elem, l, acc);
        let lo = 0, hi = 0;
        for (let j = 0; j < Math.min(4, elem); j++) lo |= b[o + j]! << (8 * j);
        for (let j = 4; j < elem; j++) hi |= b[o + j]! << (8 * (j - 4));
        lo >>>= 0; hi >>>= 0;
        if (op === 'suld') {
          u[R[k]! + 2 * l] = lo;
          u[R[k]! + 2 * l + 1] = hi;
          continue;
        }
        let vlo = u[R[k]! + 2 * l]!, vhi = elem === 8 ? u[R[k]! + 2 * l + 1]! : 0;
        if (op === 'sured') [vlo, vhi] = reduce(redOp!, signed, elem, lo, hi, vlo, vhi);
        for (let j = 0; j < Math.min(4, elem); j++) b[o + j] = (vlo >>> (8 * j)) & 0xff;
        for (let j = 4; j < elem; j++) b[o + j] = (vhi >>> (8 * (j - 4))) & 0xff;
      }
    }
  };
}

/** The value sured stores: old (lo, hi) combined with the operand (vlo, vhi). */
function reduce(op: string, signed: boolean, elem: number, lo: number, hi: number, vlo: number, vhi: number): [number, number] {
  if (elem === 4) {
    const a = signed ? lo | 0 : lo, b = signed ? vlo | 0 : vlo;
    switch (op) {
      case 'add': return [(lo + vlo) >>> 0, 0];
      case 'min': return [(a < b ? lo : vlo) >>> 0, 0];
      case 'max': return [(a > b ? lo : vlo) >>> 0, 0];
      case 'and': return [(lo & vlo) >>> 0, 0];
      default: return [(lo | vlo) >>> 0, 0];
    }
  }
  const big = (l: number, h: number): bigint => {
    const v = (BigInt(h >>> 0) << 32n) | BigInt(l >>> 0);
    return signed ? BigInt.asIntN(64, v) : v;
  };
  const a = big(lo, hi), b = big(vlo, vhi);
  const r = op === 'add' ? a + b : op === 'min' ? (a < b ? a : b) : op === 'max' ? (a > b ? a : b) : op === 'and' ? a & b : a | b;
  const u = BigInt.asUintN(64, r);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

/** Round to nearest, ties to even (the conversion of a scaled float to a normalized integer). */
function rne(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

/**
 * How sust.p reads a source register for a surface's channel format (PTX ISA, sust): UNORM, SNORM
 * and FLOAT formats take an .f32, UINT a .u32, SINT an .s32; the value is then converted to the
 * channel. A surface is UNORM/SNORM when its launch image has `"readMode": "normalizedFloat"` and
 * 8/16-bit integer channels (what suq.channel_data_type reports). The ISA leaves out-of-range
 * conversions open; here they saturate, as Direct3D's typed stores (which the hardware serves) do:
 * floats clamp to [0, 1] / [-1, 1] (NaN to 0) and round to nearest even after scaling, integers
 * clamp to the channel's range, f32 to half rounds to nearest even.
 */
export function formatChannel(img: Image, bits: number): number {
  const f = img.format;
  if (f.kind === 'float') return f.bits === 32 ? bits >>> 0 : toF16(floatOf(bits), RN);
  const norm = img.sampler.readMode === 'normalizedFloat' && f.bits < 32;
  if (norm) {
    const x = floatOf(bits);
    if (Number.isNaN(x)) return 0;
    if (f.kind === 'unsigned') return rne(Math.min(1, Math.max(0, x)) * (2 ** f.bits - 1));
    const max = 2 ** (f.bits - 1) - 1;
    return rne(Math.min(1, Math.max(-1, x)) * max) & (2 ** f.bits - 1);
  }
  if (f.kind === 'unsigned') return f.bits === 32 ? bits >>> 0 : Math.min(bits >>> 0, 2 ** f.bits - 1);
  if (f.bits === 32) return bits >>> 0;
  const half = 2 ** (f.bits - 1);
  return Math.min(half - 1, Math.max(-half, bits | 0)) & (2 * half - 1);
}

/**
 * sust.p / sured.p: x counts samples (texels), not bytes. sust.p writes the source vector to the
 * texel's channels left to right (R, G, B, A), converted to the channel format (formatChannel);
 * sources past the format's channels are ignored, channels past the sources keep their bytes (the
 * ISA leaves them unpredictable). sured.p reduces into the R channel of a 32-bit integer format,
 * as .u32 (uint) or .s32 (int).
 */
function compileFormatted(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const op = ins.opcode;
  const mods = ins.mods;
  const what = `'${[op, ...mods].join('.')}'`;
  if (op === 'suld') return fail(ctx, `${what}: formatted loads (suld.p) are not part of the PTX ISA; use suld.b`);
  const geom = mods.find((m) => GEOMS.includes(m));
  if (!geom || geom === 'cube' || geom === 'acube' || geom.endsWith('ms')) return fail(ctx, `${what} needs .1d .2d .3d .a1d or .a2d`);
  const mode = mods.includes('zero') ? 'zero' : mods.includes('clamp') ? 'clamp' : 'trap';
  const vec = mods.includes('v4') ? 4 : mods.includes('v2') ? 2 : 1;
  const wide = mods.includes('b64');
  // the ISA names .b32 (sust.p) and .b32/.b64 (sured.p); the format decides how the bits are read
  if (!wide && !mods.some((m) => m === 'b32' || m === 'u32' || m === 's32' || m === 'f32')) return fail(ctx, `${what} needs .b32${op === 'sured' ? ' or .b64' : ''}`);
  if (wide && op === 'sust') return fail(ctx, `${what}: sust.p stores .b32 values`);
  const redOp = op === 'sured' ? ['add', 'min', 'max', 'and', 'or'].find((x) => mods.includes(x)) : undefined;
  if (op === 'sured' && !redOp) return fail(ctx, `${what} needs .add .min .max .and or .or`);
  if (wide && redOp !== 'min' && redOp !== 'max') return fail(ctx, `${what}: .b64 is restricted to .min and .max`);
  if (op === 'sured' && vec !== 1) return fail(ctx, `${what}: sured takes one value`);
  const layered = geom === 'a1d' || geom === 'a2d';
  const nc = (geom === '1d' || geom === 'a1d' ? 1 : geom === '2d' || geom === 'a2d' ? 2 : 3) + (layered ? 1 : 0);
  const ops = ins.operands;
  const br = bracket(ctx, ops[0]);
  if (br.coords.length < nc) return fail(ctx, `${what}: expected ${nc} coordinate(s)`);
  const image = imageOperand(ctx, br.image, 'surface');
  const C = br.coords.slice(0, nc).map((o) => src(ctx, o, 's32'));
  const data = items(ops[1]);
  if (data.length !== vec) return fail(ctx, `${what}: expected ${vec} data register(s)`);
  const R = data.map((d) => src(ctx, d, wide ? 'b64' : 'b32'));
  return (w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const img = image(w, l);
      const f = img.format;
      const cb = f.bits / 8;
      if (op === 'sured' && (f.kind === 'float' || f.bits !== 32 || img.sampler.readMode === 'normalizedFloat' && f.bits < 32 || wide)) {
        const e = new Fault('invalid', `${what} on surface ${img.name} (${f.name}): sured.p needs a ${wide ? '64' : '32'}-bit integer format (int or uint${wide ? ' samples of 64 bits, which launch images do not have' : ''})`);
        e.lane = l;
        throw e;
      }
      const base = layered ? 1 : 0;
      let x = u[C[base]! + 2 * l]! | 0;
      let y = nc - base > 1 ? u[C[base + 1]! + 2 * l]! | 0 : 0;
      let z = nc - base > 2 ? u[C[base + 2]! + 2 * l]! | 0 : 0;
      let layer = layered ? u[C[0]! + 2 * l]! | 0 : 0;
      if (x < 0 || x >= img.width || y < 0 || y >= img.height || z < 0 || z >= img.depth || layer < 0 || layer >= img.layers) {
        if (mode === 'trap') {
          const e = new Fault('oob', `${op} out of range on surface ${img.name}: sample x ${x}, y ${y}, z ${z}${layered ? `, layer ${layer}` : ''} (surface ${img.width} x ${img.height} x ${img.depth}${layered ? ` x ${img.layers} layers` : ''}, .trap)`);
          e.lane = l;
          throw e;
        }
        if (mode === 'zero') continue;
        x = Math.max(0, Math.min(img.width - 1, x));
        y = Math.max(0, Math.min(img.height - 1, y));
        z = Math.max(0, Math.min(img.depth - 1, z));
        layer = Math.max(0, Math.min(img.layers - 1, layer));
      }
      const addr = img.base + ((layer * img.depth + z) * img.height + y) * rowPitch(img) + x * texelBytes(f);
      if (op === 'sured') {
        const o = w.translate(Space.Global, addr, GLOBAL_HI, 4, l, Access.Atomic);
        const b = w.xbank.u8;
        const old = (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
        const [v] = reduce(redOp!, f.kind === 'signed', 4, old, 0, u[R[0]! + 2 * l]!, 0);
        for (let j = 0; j < 4; j++) b[o + j] = (v >>> (8 * j)) & 0xff;
        continue;
      }
      for (let k = 0; k < Math.min(vec, f.channels); k++) {
        const o = w.translate(Space.Global, addr + k * cb, GLOBAL_HI, cb, l, Access.Write);
        const b = w.xbank.u8;
        const v = formatChannel(img, u[R[k]! + 2 * l]!);
        for (let j = 0; j < cb; j++) b[o + j] = (v >>> (8 * j)) & 0xff;
      }
    }
  };
}
