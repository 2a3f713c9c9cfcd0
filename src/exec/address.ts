/**
 * Addressing of the memory instructions: the state space an instruction names, and each lane's
 * address computed from its address operand ([reg+off], [var+off], [array[reg]], immediate, a
 * generic access naming a variable of another space). Shared by ld/st/atom (memops.ts), the
 * tensor loads (wmma, ldmatrix) and the async copies and mbarriers.
 */
import type { ROperand } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';
import { type Ctx, fail, scaledIndex, varAddress } from './compile/operands.js';
import { CONST_HI, LOCAL_HI, PARAM_HI, SHARED_HI, Space } from './memory.js';
import type { Warp } from './state.js';

const SPACE_OF = new Map<string, Space>([
  ['global', Space.Global], ['shared', Space.Shared], ['local', Space.Local], ['const', Space.Const], ['param', Space.Param],
]);

export function spaceMod(mods: readonly string[]): Space {
  for (const m of mods) {
    // `shared::cta` names shared too; only such a modifier is cut (no array per modifier: `check` calls this per memory instruction)
    const cut = m.indexOf('::');
    const s = SPACE_OF.get(cut < 0 ? m : m.slice(0, cut));
    if (s !== undefined) return s;
  }
  return Space.Generic;
}

/** Address operand → per-lane (lo, hi) computer. Writes into `out` pair arrays. */
export interface AddrGen {
  /** Base register slot (64-bit or 32-bit) or -1. */
  readonly reg: number;
  readonly reg32: boolean;
  /** Constant part (lo, hi) added; `frame` makes it relative to the frame's local base. */
  readonly lo: number;
  readonly hi: number;
  readonly frame: boolean;
}

export function addrGen(ctx: Ctx, op: ROperand | undefined): AddrGen {
  if (!op || op.kind !== 'addr') return fail(ctx, `${ctx.ins.opcode} needs an address operand [..]`);
  const off = Number(op.offset);
  const b = op.base;
  if (!b) {
    checkImmediateAddress(ctx);
    return { reg: -1, reg32: false, lo: off >>> 0, hi: off < 0 ? 0xffffffff : 0, frame: false };
  }
  if (b.kind === 'reg') return { reg: b.reg.slot * 64, reg32: typeSize(b.reg.type) <= 4, lo: off >>> 0, hi: off < 0 ? 0xffffffff : 0, frame: false };
  if (b.kind === 'var') {
    const a = varAddress(b.v, ctx.fc.layout);
    const lo = a.lo + off + Number(b.addend);
    return { reg: -1, reg32: false, lo: lo >>> 0, hi: genericWindow(ctx, b.v.space, a.hi), frame: a.frame };
  }
  if (b.kind === 'special') {
    return { reg: ctx.fc.special(b.name, b.comp), reg32: true, lo: off >>> 0, hi: 0, frame: false };
  }
  if (b.kind === 'varidx') {
    // array[reg]: the scaled index into a scratch slot (a prologue), the array's address as the constant
    const a = varAddress(b.v, ctx.fc.layout);
    const lo = a.lo + off + Number(b.addend);
    return { reg: scaledIndex(ctx, b.reg, b.scale), reg32: false, lo: lo >>> 0, hi: genericWindow(ctx, b.v.space, a.hi), frame: a.frame };
  }
  return fail(ctx, `unsupported address operand in ${ctx.ins.opcode}`);
}

/**
 * An immediate absolute address (`st.shared.s32 [100], r7`): every space in ISA 1.x (the ISA 1.1
 * ld/st text and examples); from 2.0 on ptxas takes it only for .local.
 */
function checkImmediateAddress(ctx: Ctx): void {
  const v = ctx.fc.layout.version;
  if (v === undefined || v.startsWith('1.')) return;
  const op = ctx.ins.opcode;
  if (op !== 'ld' && op !== 'st' && op !== 'ldu' && op !== 'atom' && op !== 'red') return;
  if (spaceMod(ctx.ins.mods) !== Space.Local) fail(ctx, `an immediate address is allowed only in the .local space (ptxas; ISA 1.x modules allowed it in every space)`);
}

/**
 * The high word of a variable's address in an access: a generic access (no state space on the
 * instruction) that names a .shared/.local/.const/.param variable means the variable's generic
 * address, in its space's window (PTX ISA, generic addressing), not its offset in the space.
 */
function genericWindow(ctx: Ctx, space: string, hi: number): number {
  if (hi !== 0 || spaceMod(ctx.ins.mods) !== Space.Generic) return hi;
  switch (space) {
    case 'shared': return SHARED_HI;
    case 'local': return LOCAL_HI;
    case 'const': case 'param': {
      // ISA 1.x has no generic addressing: a load without a space names the variable's space;
      // from 2.0 on ptxas refuses a .const or .param variable in a generic access
      const v = ctx.fc.layout.version;
      if (v !== undefined && !v.startsWith('1.')) fail(ctx, `state space mismatch: a generic ${ctx.ins.opcode} cannot name a .${space} variable (write ${ctx.ins.opcode}.${space})`);
      return space === 'const' ? CONST_HI : PARAM_HI;
    }
    default: return hi;
  }
}

/** Shared scratch for address computation (one instruction runs at a time). */
export const AL = new Uint32Array(32);
export const AH = new Uint32Array(32);

export function computeAddrs(w: Warp, m: number, g: AddrGen): void {
  const u = w.u32;
  const base = g.frame ? w.frame.localBase : 0;
  for (let l = 0; l < 32; l++) {
    if (((m >>> l) & 1) === 0) continue;
    let lo: number, hi: number;
    if (g.reg >= 0) {
      lo = u[g.reg + 2 * l]!;
      hi = g.reg32 ? 0 : u[g.reg + 2 * l + 1]!;
    } else {
      lo = 0;
      hi = 0;
    }
    const s = lo + g.lo + base;
    AL[l] = s >>> 0;
    AH[l] = (hi + g.hi + (s > 0xffffffff ? 1 : 0)) >>> 0;
  }
}
