/**
 * atom/red on 16-bit floats and the vector forms (PTX ISA 8.1+, atom and red): `.add.noftz` on
 * f16, f16x2, bf16, bf16x2 rounds to nearest even and keeps subnormals; `.v2/.v4/.v8` of f16/bf16,
 * `.v2/.v4` of f16x2/bf16x2 with .add/.min/.max, `.v2/.v4.f32` with .add (global space, sm_90);
 * f32 .add on global memory flushes subnormals, on shared memory it does not. Expected bit
 * patterns are worked out by hand from the formats (f16: 1.0 = 0x3c00, one ulp at 1 = 2^-10;
 * bf16: 1.0 = 0x3f80, one ulp at 1 = 2^-7).
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { loadPtx } from '../../src/ptx/index.js';

const HEAD = (target = 'sm_90'): string => `.version 8.4\n.target ${target}\n.address_size 64\n`;

/** Runs `body` in one block of `threads` threads with %rd1 = buf (u32 words `init`), %rd2 = out; returns [buf, out]. */
function run(body: string, init: number[], threads = 1, outWords = 16, target = 'sm_90'): [number[], number[]] {
  const text = `${HEAD(target)}.shared .align 16 .b32 sh[4];
.visible .entry k(.param .u64 buf, .param .u64 out)
{
  .reg .b16 %h<24>; .reg .b32 %r<24>; .reg .f32 %f<16>; .reg .b64 %rd<8>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [buf]; ld.param.u64 %rd2, [out];
${body}
  ret;
}`;
  const loaded = loadPtx(text, 'atom-half.ptx');
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const m = new Machine(loaded.program!, {
    kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1], sharedBytes: 0,
    args: [
      { kind: 'buffer', name: 'buf', type: 'u32', count: init.length, init: new Uint8Array(new Uint32Array(init).buffer), file: undefined },
      { kind: 'buffer', name: 'out', type: 'u32', count: outWords, init: undefined, file: undefined },
    ],
  }, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  const words = (i: number, n: number): number[] => {
    const base = m.buffers[i]!.alloc.base >> 2;
    return Array.from(m.arena.bank.u32.subarray(base, base + n));
  };
  return [words(0, init.length), words(1, outWords)];
}

test('atom.add.noftz.f16x2 / bf16x2: round to nearest even per half, subnormals kept, old value returned', () => {
  // f16: 1.0 + 2^-11 (0x1000) is a tie -> even 1.0; 0x3c01 + 2^-11 ties -> 0x3c02
  // f16 subnormals 0x0001 + 0x0003 = 0x0004 (no flush); bf16 likewise with 2^-8 = 0x3b80
  const [buf, out] = run(`
  mov.b32 %r1, 0x10001000;
  atom.global.add.noftz.f16x2 %r2, [%rd1], %r1;
  mov.b32 %r3, 0x00031000;
  atom.add.noftz.f16x2 %r4, [%rd1+4], %r3;
  mov.b32 %r5, 0x00033b80;
  atom.global.add.noftz.bf16x2 %r6, [%rd1+8], %r5;
  mov.b32 %r7, 0x3b803b80;
  red.global.add.noftz.bf16x2 [%rd1+12], %r7;
  st.global.v2.b32 [%rd2], {%r2, %r4};
  st.global.b32 [%rd2+8], %r6;`, [0x3c013c00, 0x00013c00, 0x00013f81, 0x3f803f81]);
  expect(buf.map((x) => x.toString(16))).toEqual(['3c023c00', '43c00', '43f82', '3f803f82']);
  expect(out.slice(0, 3).map((x) => x.toString(16))).toEqual(['3c013c00', '13c00', '13f81']);
});

test('atom.add.noftz.f16 / bf16 scalar and cas.b16 (the CAS loop nvcc emits for bf16 on sm_80)', () => {
  const [buf, out] = run(`
  mov.b16 %h1, 0x1000;
  atom.global.add.noftz.f16 %h2, [%rd1], %h1;
  mov.b16 %h3, 0x3b80;
  atom.global.add.noftz.bf16 %h4, [%rd1+2], %h3;
  mov.b16 %h5, 0x3f81; mov.b16 %h6, 0x4000;
  atom.global.cas.b16 %h7, [%rd1+4], %h5, %h6;
  cvt.u32.u16 %r1, %h2; cvt.u32.u16 %r2, %h4; cvt.u32.u16 %r3, %h7;
  st.global.v4.b32 [%rd2], {%r1, %r2, %r3, %r3};`, [0x3f813c01, 0x3f81]);
  // 0x3c01 + 2^-11 -> 0x3c02; bf16 0x3f81 + 2^-8 -> 0x3f82; cas matched 0x3f81 -> 0x4000
  expect(buf.map((x) => x.toString(16))).toEqual(['3f823c02', '4000']);
  expect(out.slice(0, 3).map((x) => x.toString(16))).toEqual(['3c01', '3f81', '3f81']);
});

test('32 lanes adding f16x2 (1.0, 0.5) to one word each add once: (32.0, 16.0)', () => {
  const [buf] = run(`
  mov.b32 %r1, 0x38003c00;
  atom.global.add.noftz.f16x2 %r2, [%rd1], %r1;`, [0], 32);
  // 32.0 = 2^5 -> exponent 20 -> 0x5000; 16.0 -> 0x4c00
  expect(buf[0]!.toString(16)).toBe('4c005000');
});

test('vector atomics: .v8.f16 max/min, .v4.bf16x2, .v4.f32 add on global (flushes), red.v2.f16x2', () => {
  const [buf, out] = run(`
  mov.b16 %h0, 0x3c00; mov.b16 %h1, 0x0000; mov.b16 %h2, 0x7e00; mov.b16 %h3, 0xc000;
  mov.b16 %h4, 0x8000; mov.b16 %h5, 0x3c00; mov.b16 %h6, 0x0001; mov.b16 %h7, 0x4000;
  atom.global.v8.f16.max.noftz {%h8, %h9, %h10, %h11, %h12, %h13, %h14, %h15}, [%rd1], {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};
  atom.global.v4.f16.min.noftz {%h16, %h17, %h18, %h19}, [%rd1+16], {%h0, %h1, %h2, %h3};
  mov.b32 %r1, 0x3f803f80; mov.b32 %r2, 0x40003f80; mov.b32 %r3, 0x3b803b80; mov.b32 %r4, 0x00010001;
  atom.global.v4.bf16x2.add.noftz {%r5, %r6, %r7, %r8}, [%rd1+32], {%r1, %r2, %r3, %r4};
  mov.b32 %f1, 0f3FC00000; mov.b32 %f2, 0f00000001; mov.b32 %f3, 0fC0000000; mov.b32 %f4, 0f00800000;
  atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1+48], {%f1, %f2, %f3, %f4};
  mov.b32 %r9, 0x3c003c00;
  red.global.v2.f16x2.add.noftz [%rd1+64], {%r9, %r9};
  mov.b32 %r10, {%h8, %h9}; mov.b32 %r11, {%h10, %h11}; mov.b32 %r12, {%h12, %h13}; mov.b32 %r13, {%h14, %h15};
  st.global.v4.b32 [%rd2], {%r10, %r11, %r12, %r13};
  st.global.v4.b32 [%rd2+16], {%r5, %r6, %r7, %r8};
  st.global.v4.f32 [%rd2+32], {%f5, %f6, %f7, %f8};`, [
    // v8.f16 at 0: old (2.0, -0, 1.0, NaN) (+0, -1.0, 0x0002, 0x3c00)
    0x80004000, 0x7e003c00, 0xbc000000, 0x3c000002,
    // v4.f16 at 16: old (0.5, +0, 1.0, 1.0)
    0x00003800, 0x3c003c00, 0, 0,
    // v4.bf16x2 at 32: (1.0, 1.0) (1.0, 2.0) (1.0, 0x3f81) (0x0001, 0x0001)
    0x3f803f80, 0x40003f80, 0x3f813f80, 0x00010001,
    // v4.f32 at 48: 2.25, 0x00000001 (subnormal), 1.0, 0x00800000
    0x40100000, 0x00000001, 0x3f800000, 0x00800000,
    // red.v2.f16x2 at 64: (1.0, 2.0) (0.5, -1.0)
    0x40003c00, 0xbc003800,
  ]);
  const hex = (xs: number[]): string[] => xs.map((x) => x.toString(16).padStart(8, '0'));
  // max per element (element 0 the low half of the first word): max(2,1)=2; max(-0,+0)=+0;
  // max(1,NaN)=1; max(NaN,-2)=-2; max(+0,-0)=+0;
  // max(-1,1)=1; max(0x0002,0x0001)=0x0002; max(1,2)=2
  // min: min(0.5,1)=0.5; min(+0,+0)=+0; min(1,NaN)=1; min(1,-2)=-2
  // bf16x2 adds: (1+1, 1+1) = 0x4000 each; (1+1, 2+2) = (0x4000, 0x4080); 1+2^-8 ties to 1.0,
  // 0x3f81+2^-8 ties to 0x3f82; subnormals 0x0001+0x0001 = 0x0002
  // f32 global add flushes: 2.25+1.5=3.75; 1ulp-subnormal + 1ulp-subnormal -> +0; 1-2=-1; 2*2^-126=2^-125
  // red.v2.f16x2 + (1, 1): (1+1, 2+1) = (0x4000, 0x4200); (0.5+1, -1+1) = (0x3e00, +0)
  expect(hex(buf)).toEqual(hex([
    0x00004000, 0xc0003c00, 0x3c000000, 0x40000002,
    0x00003800, 0xc0003c00, 0, 0,
    0x40004000, 0x40804000, 0x3f823f80, 0x00020002,
    0x40700000, 0x00000000, 0xbf800000, 0x01000000,
    0x42004000, 0x00003e00,
  ]));
  // old values in element order
  expect(hex(out.slice(0, 12))).toEqual(hex([
    0x80004000, 0x7e003c00, 0xbc000000, 0x3c000002,
    0x3f803f80, 0x40003f80, 0x3f813f80, 0x00010001,
    0x40100000, 0x00000001, 0x3f800000, 0x00800000,
  ]));
});

test('atom.add.f32 flushes subnormals on global memory and keeps them on shared memory (ISA text)', () => {
  const [, out] = run(`
  mov.b32 %f1, 0f00000001;
  mov.u32 %r1, sh;
  st.shared.f32 [%r1], %f1;
  st.global.f32 [%rd1], %f1;
  atom.shared.add.f32 %f2, [%r1], %f1;
  atom.global.add.f32 %f3, [%rd1], %f1;
  ld.shared.f32 %f4, [%r1];
  ld.global.f32 %f5, [%rd1];
  st.global.v2.f32 [%rd2], {%f4, %f5};`, [0]);
  expect(out.slice(0, 2)).toEqual([2, 0]);
});

test('forms ptxas refuses are located errors naming why', () => {
  const diag = (line: string, target = 'sm_90'): string[] => {
    const text = `${HEAD(target)}.visible .entry k(.param .u64 p)\n{\n  .reg .b16 %h<9>; .reg .b32 %r<9>; .reg .f32 %f<9>; .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  ${line}\n  ret;\n}\n`;
    return unsupportedInstructions(loadPtx(text, 'forms.ptx').program!).map((d) => d.message);
  };
  expect(diag('atom.global.v2.f32.add {%f0, %f1}, [%rd1], {%f2, %f3};', 'sm_80')).toEqual([expect.stringMatching(/need sm_90 or higher; the module's \.target is sm_80/)]);
  expect(diag('atom.global.add.noftz.bf16x2 %r1, [%rd1], %r2;', 'sm_80')).toEqual([expect.stringMatching(/need sm_90 or higher/)]);
  expect(diag('atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;', 'sm_80')).toEqual([]);
  expect(diag('atom.global.add.f16x2 %r1, [%rd1], %r2;')).toEqual([expect.stringMatching(/needs \.noftz/)]);
  expect(diag('atom.global.max.noftz.f16 %h1, [%rd1], %h2;')).toEqual([expect.stringMatching(/only in the vector forms/)]);
  expect(diag('atom.global.v8.f16x2.add.noftz {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};')).toEqual([expect.stringMatching(/\.v8 is for a lone/)]);
  expect(diag('atom.shared.v2.f32.add {%f0, %f1}, [%r1], {%f2, %f3};')).toEqual([expect.stringMatching(/only in the \.global space/)]);
  expect(diag('atom.global.v2.f32.max {%f0, %f1}, [%rd1], {%f2, %f3};')).toEqual([expect.stringMatching(/max\.f32 is not valid/)]);
  expect(diag('atom.global.v2.b32.and {%r0, %r1}, [%rd1], {%r2, %r3};')).toEqual([expect.stringMatching(/not a form of atom/)]);
  expect(diag('atom.global.min.f32 %f0, [%rd1], %f2;')).toEqual([expect.stringMatching(/not valid/)]);
});
