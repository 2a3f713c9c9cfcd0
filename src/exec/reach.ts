/**
 * What a kernel can touch: the functions reachable from its entry (direct calls, and every
 * function whose address is taken, since an indirect call may reach any of them) and the shared
 * variables their instructions name. Shared memory is laid out per kernel from this, as ptxas
 * does: another kernel's shared arrays in the same module take no room and shift no address.
 */
import type { Program, ProgFunction, ROperand, VarInfo } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';

export function sharedUsedBy(program: Program, kernel: string): Set<VarInfo> {
  return reach(program, kernel).shared;
}

/**
 * The end of the highest immediate shared address the kernel's code accesses (`st.shared.s32
 * [100], r7`, an ISA 1.x form: shared memory at byte 100 with no variable declared), 0 if none:
 * the kernel's shared memory covers it.
 */
export function sharedImmediateEnd(program: Program, kernel: string): number {
  return reach(program, kernel).immediateEnd;
}

/** Whether the kernel (or a function it reaches) reads a `%reserved_smem_offset_*` register. */
export function usesReservedSmem(program: Program, kernel: string): boolean {
  return reach(program, kernel).reserved;
}

/** Calls `f` on `o` and on every operand inside it (an address's base, vector items, ...). */
export function eachOperand(o: ROperand | undefined, f: (o: ROperand) => void): void {
  if (o === undefined) return;
  f(o);
  switch (o.kind) {
    case 'addr': eachOperand(o.base, f); return;
    case 'vec': case 'list': for (const i of o.items) eachOperand(i, f); return;
    case 'not': case 'neg': eachOperand(o.inner, f); return;
    case 'regplus': f({ kind: 'reg', reg: o.reg, span: o.span }); return;
    case 'varidx': f({ kind: 'var', v: o.v, addend: o.addend, span: o.span }); f({ kind: 'reg', reg: o.reg, span: o.span }); return;
    case 'pair': eachOperand(o.a, f); eachOperand(o.b, f); return;
    default: return;
  }
}

/**
 * The functions `kernel` can reach, itself first (with bodies), and the names it reaches that are
 * only declared (extern functions such as vprintf).
 */
export function reachable(program: Program, kernel: string): { functions: ProgFunction[]; externs: string[] } {
  const functions: ProgFunction[] = [];
  const externs: string[] = [];
  const seen = new Set<string>();
  const work = [kernel];
  const onOperand = (o: ROperand): void => { if (o.kind === 'func' && !seen.has(o.name)) work.push(o.name); };
  while (work.length) {
    const name = work.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const fn = program.functions.get(name);
    if (!fn) {
      if (program.prototypes.has(name)) externs.push(name);
      continue;
    }
    functions.push(fn);
    for (const ins of fn.instrs) for (const o of ins.operands) eachOperand(o, onOperand);
  }
  return { functions, externs };
}

function reach(program: Program, kernel: string): { shared: Set<VarInfo>; reserved: boolean; immediateEnd: number } {
  const used = new Set<VarInfo>();
  let reserved = false;
  let immediateEnd = 0;
  const onOperand = (o: ROperand): void => {
    if (o.kind === 'var' && o.v.space === 'shared') used.add(o.v);
    else if (o.kind === 'special' && o.name.startsWith('reserved_smem_offset_')) reserved = true;
  };
  for (const fn of reachable(program, kernel).functions) {
    for (const ins of fn.instrs) {
      for (const o of ins.operands) {
        eachOperand(o, onOperand);
        if (o.kind === 'addr' && o.base === undefined && ins.mods.some((m) => m === 'shared' || m.startsWith('shared::'))) {
          immediateEnd = Math.max(immediateEnd, Number(o.offset) + accessBytes(ins.mods));
        }
      }
    }
  }
  return { shared: used, reserved, immediateEnd };
}

/** Bytes one memory instruction moves per thread, from its type and vector modifiers. */
function accessBytes(mods: readonly string[]): number {
  let size = 4, vec = 1;
  for (const m of mods) {
    if (m === 'v2' || m === 'v4' || m === 'v8') vec = Number(m.slice(1));
    else if (typeSize(m) > 0) size = typeSize(m);
  }
  return size * vec;
}
