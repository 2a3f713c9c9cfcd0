/**
 * Inlined frames of -O3 -lineinfo code: nvcc 13's PTX for a kernel calling twice(), which calls
 * sq(), both inlined, marks the fma with `.loc 1 4 5, function_name $L__info_string1, inlined_at 1 9 5`
 * (sq at line 4, inlined at line 9 of twice, itself `inlined_at 1 20 9` in the kernel), the names
 * in .debug_str (_Z2sqf, _Z5twicef). bt shows one frame per inlined function, as cuda-gdb does:
 * sq at k.cu:4, twice at k.cu:9, the kernel at k.cu:20 (read from those directives by hand).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/api.js';

// nvcc -O3 -lineinfo -ptx -arch=sm_80 of:
//   1  __device__ __forceinline__ float sq(float x)
//   2  {
//   3      float y = x * x;
//   4      return y + 1.0f;
//   5  }
//   7  __device__ __forceinline__ float twice(float x)
//   8  {
//   9      float s = sq(x);
//  10      return s * 2.0f;
//  11  }
//  13  __global__ void k(float* out, const float* in, int n)
//  14  {
//  15      int i = blockIdx.x * blockDim.x + threadIdx.x;
//  17      if (i < n) {
//  18          float v = in[i];
//  20          out[i] = twice(v);
//  21      }
//  22  }
const PTX = `.version 9.0
.target sm_80
.address_size 64

	// .globl	_Z1kPfPKfi

.visible .entry _Z1kPfPKfi(
	.param .u64 _Z1kPfPKfi_param_0,
	.param .u64 _Z1kPfPKfi_param_1,
	.param .u32 _Z1kPfPKfi_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	.loc	1 13 0


	ld.param.u64 	%rd1, [_Z1kPfPKfi_param_0];
	ld.param.u64 	%rd2, [_Z1kPfPKfi_param_1];
	ld.param.u32 	%r2, [_Z1kPfPKfi_param_2];
	.loc	1 15 5
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	.loc	1 17 5
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;

	.loc	1 15 5
	cvta.to.global.u64 	%rd3, %rd2;
	.loc	1 18 9
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f1, [%rd5];
	.loc	1 20 9
	.loc	1 9 5, function_name $L__info_string0, inlined_at 1 20 9
	.loc	1 4 5, function_name $L__info_string1, inlined_at 1 9 5
	fma.rn.f32 	%f2, %f1, %f1, 0f3F800000;
	.loc	1 10 5, function_name $L__info_string0, inlined_at 1 20 9
	add.f32 	%f3, %f2, %f2;
	.loc	1 15 5
	cvta.to.global.u64 	%rd6, %rd1;
	.loc	1 20 9
	add.s64 	%rd7, %rd6, %rd4;
	st.global.f32 	[%rd7], %f3;

$L__BB0_2:
	.loc	1 22 1
	ret;

}
	.file	1 "k.cu"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,53,116,119,105,99,101,102,0
$L__info_string1:
.b8 95,90,50,115,113,102,0

	}
`;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-inl-'));
  writeFileSync(join(tmp, 'k.ptx'), PTX);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const frames = (e: Engine): string[] => e.stack().map((f) => `${f.function}${f.inlined ? ' (inlined)' : ''} ${f.file ?? '?'}:${f.line}`);

test('bt shows the functions inlined at the stop, innermost first, each at its line', () => {
  const e = Engine.open({ ptxPath: join(tmp, 'k.ptx'), block: '4', arg: ['f32[4]', 'f32[4]', 'u32:4'] });
  e.setBreakpoints('k.cu', [{ line: 4 }]);
  expect(e.continue({ direction: 'forward' }).reason).toBe('breakpoint');
  expect(frames(e)).toEqual(['_Z2sqf (inlined) k.cu:4', '_Z5twicef (inlined) k.cu:9', '_Z1kPfPKfi k.cu:20']);
  // the next instruction is twice's own line 10, still inlined at line 20
  e.step({ granularity: 'instruction', direction: 'forward' });
  expect(frames(e)).toEqual(['_Z5twicef (inlined) k.cu:10', '_Z1kPfPKfi k.cu:20']);
  // selecting the kernel's frame shows the call site
  e.selectFrame(1);
  expect(e.where().line).toBe(20);
  // code that is not inlined has the one frame
  e.step({ granularity: 'instruction', direction: 'forward' });
  expect(frames(e)).toEqual(['_Z1kPfPKfi k.cu:15']);
});

test('a breakpoint on a line with no code of its own stops at the next line with code (gdb)', () => {
  const e = Engine.open({ ptxPath: join(tmp, 'k.ptx'), block: '4', arg: ['f32[4]', 'f32[4]', 'u32:4'] });
  // line 3 (folded into the fma) -> 4; line 19 (blank) -> 20; line 16 -> 17
  const bps = e.setBreakpoints('k.cu', [{ line: 3 }, { line: 19 }, { line: 16 }]);
  expect(bps.map((b) => b.line)).toEqual([4, 20, 17]);
});
