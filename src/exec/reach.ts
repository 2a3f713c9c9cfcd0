/**
 * What a kernel can touch: the functions reachable from its entry (direct calls, and every
 * function whose address is taken, since an indirect call may reach any of them) and the shared
 * variables their instructions name. Shared memory is laid out per kernel from this, as ptxas
 * does: another kernel's shared arrays in the same module take no room and shift no address.
 */
import type { Program, ROperand, VarInfo } from '../ptx/resolve.js';

export function sharedUsedBy(program: Program, kernel: string): Set<VarInfo> {
  return reach(program, kernel).shared;
}

/** Whether the kernel (or a function it reaches) reads a `%reserved_smem_offset_*` register. */
export function usesReservedSmem(program: Program, kernel: string): boolean {
  return reach(program, kernel).reserved;
}

function reach(program: Program, kernel: string): { shared: Set<VarInfo>; reserved: boolean } {
  const used = new Set<VarInfo>();
  let reserved = false;
  const seen = new Set<string>();
  const work = [kernel];
  const visit = (o: ROperand | undefined): void => {
    if (o === undefined) return;
    switch (o.kind) {
      case 'var': if (o.v.space === 'shared') used.add(o.v); return;
      case 'special': if (o.name.startsWith('reserved_smem_offset_')) reserved = true; return;
      case 'func': if (!seen.has(o.name)) work.push(o.name); return;
      case 'addr': visit(o.base); return;
      case 'vec': case 'list': for (const i of o.items) visit(i); return;
      case 'not': case 'neg': visit(o.inner); return;
      case 'pair': visit(o.a); visit(o.b); return;
      default: return;
    }
  };
  while (work.length) {
    const name = work.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const fn = program.functions.get(name);
    if (!fn) continue;
    for (const ins of fn.instrs) for (const o of ins.operands) visit(o);
  }
  return { shared: used, reserved };
}
