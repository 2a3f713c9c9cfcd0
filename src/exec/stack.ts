/**
 * alloca / stacksave / stackrestore on a thread's local stack. The warp's stack pointer `sp` is
 * common to its lanes (each lane has its own local region at the same offsets), so an allocation
 * takes the largest size among the active lanes. Memory is zeroed for determinism; a return
 * frees it with the frame (the caller's sp is restored at `ret`).
 */
import type { CInstr, Exec } from './compiled.js';
import { type Ctx, dst, fail, src } from './compile/operands.js';
import { localWritten, type Warp } from './state.js';

export function compileStack(ctx: Ctx, _c: CInstr): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const wide = !ins.mods.includes('u32');
  switch (ins.opcode) {
    case 'alloca': {
      const D = dst(ctx, ops[0]);
      const S = src(ctx, ops[1], wide ? 'u64' : 'u32');
      const aOp = ops[2];
      const align = aOp === undefined ? 8 : aOp.kind === 'int' ? Number(aOp.value) : fail(ctx, 'alloca alignment must be an immediate');
      if (align < 1 || align > 4096 || (align & (align - 1)) !== 0) fail(ctx, 'alloca alignment must be a power of two up to 4096');
      return (w: Warp, m: number) => {
        let size = 0;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) size = Math.max(size, w.u32[S + 2 * l]!);
        const ptr = (w.sp + align - 1) & ~(align - 1);
        w.sp = ptr + size;
        w.ensureLocal(w.sp + 16);
        const stride = w.localStride;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          w.local.u8.fill(0, l * stride + ptr, l * stride + ptr + size);
          localWritten(w, l, ptr, size);
          w.u32[D + 2 * l] = ptr;
          w.u32[D + 2 * l + 1] = 0;
        }
      };
    }
    case 'stacksave': {
      const D = dst(ctx, ops[0]);
      return (w: Warp, m: number) => {
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) { w.u32[D + 2 * l] = w.sp; w.u32[D + 2 * l + 1] = 0; }
      };
    }
    case 'stackrestore': {
      const S = src(ctx, ops[0], wide ? 'u64' : 'u32');
      return (w: Warp, m: number) => {
        // the value comes from stacksave in valid programs; it can only shrink the stack to
        // the current frame's start
        let v = 0;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) { v = w.u32[S + 2 * l]!; break; }
        if (v >= w.frame.localBase && v <= w.sp) w.sp = v;
      };
    }
    default:
      return fail(ctx, `unsupported stack instruction ${ins.opcode}`);
  }
}
