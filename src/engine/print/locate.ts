/**
 * From a DWARF variable to a Value at the focused thread's position: evaluate its location
 * expression at the pc and map the result onto the machine. Locations relative to a PTX symbol
 * (`__local_depot1 + 16`, a kernel `.param`, a `.shared` array) are placed with the view's
 * `symbolAddress`, in the symbol's state space. Anything that cannot be placed becomes an
 * unavailable value with a reason (never bytes from the wrong place).
 */
import { DW_OP } from '../../../dwarf/src/index.js';
import { evaluate, type EvalContext, type Expression, type Location, type Operation } from '../../../dwarf/src/index.js';
import type { VariableInfo, VisibleVariable } from '../../../dwarf/src/index.js';
import { sizeOf, type DwarfType } from '../../../dwarf/src/index.js';
import type { SpaceName, ThreadView } from '../types.js';
import { spaceOfClass } from './ctypes.js';
import type { DebugInfo } from './debuginfo.js';
import { bigintBytes, bytesValue, memoryValue, OPTIMIZED_OUT, unavailableValue, type Value } from './value.js';

/** The default resolver marks symbol addresses with bit 63; they are not machine addresses. */
const SYNTHETIC = 1n << 63n;

function context(view: ThreadView): EvalContext {
  return {
    readRegister: (reg) => (typeof reg === 'string' ? view.readRegister(reg) : undefined),
    readMemory: (address, size) => {
      if (address & SYNTHETIC) return undefined;
      const b = view.readMemory('generic', address, size);
      if (!b) return undefined;
      let v = 0n;
      for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
      return v;
    },
  };
}

/**
 * The operations of a variable's location at `pc`, re-decoded so that a malformed expression is
 * an error rather than a shorter (and wrong) operation list; DW_OP_addr must name a symbol.
 */
function locationAt(info: DebugInfo, v: VariableInfo, pc: bigint): { ops: readonly Operation[] | undefined; error?: string } {
  const loc = v.location;
  if (!loc) return { ops: undefined };
  let expr: Expression | undefined;
  if (loc.kind === 'expression') expr = loc.expression;
  else {
    let fallback: Expression | undefined;
    for (const e of loc.entries) {
      if (e.isDefault) { fallback = e.expression; continue; }
      if (pc >= e.begin.address && pc < e.end.address) { expr = e.expression; break; }
    }
    expr ??= fallback;
  }
  if (!expr) return { ops: undefined };
  const { ops, error } = info.dwarf.expression(v.die.unit, expr);
  if (error) return { ops, error: `malformed location expression (${error.replace(/^.*: /, '')})` };
  for (const op of ops) {
    if (op.code !== DW_OP.addr) continue;
    if (!op.reloc) return { ops, error: 'the location is an absolute address, not a PTX symbol' };
    if (op.reloc.target.kind === 'unresolved') return { ops, error: `the location names ${op.reloc.symbol}, which the program does not have` };
  }
  return { ops };
}

function pcOf(info: DebugInfo, view: ThreadView): bigint | undefined {
  return info.scopes.instructionAddress(view.function, view.pc);
}

/** Value of a variable visible at the view's pc (locals and parameters). */
export function visibleValue(info: DebugInfo, view: ThreadView, v: VisibleVariable): Value {
  let ops: readonly Operation[] | undefined;
  try {
    const pc = pcOf(info, view);
    const at = pc === undefined ? { ops: v.ops } : locationAt(info, v, pc);
    if (at.error) return unavailableValue(v.type, `cannot read ${v.name}: ${at.error}`);
    ops = at.ops;
  } catch (e) {
    return unavailableValue(v.type, `cannot read the location of ${v.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!ops || ops.length === 0) return unavailableValue(v.type, OPTIMIZED_OUT);
  let r;
  try {
    r = info.scopes.evaluateVariable({ ...v, ops }, context(view));
  } catch (e) {
    return unavailableValue(v.type, `cannot evaluate the location of ${v.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!r.ok) return unavailableValue(v.type, `cannot evaluate the location of ${v.name}: ${r.error}`);
  return placeLocation(info, view, v, r.location);
}

/** Value of a compile-unit or function-static variable (no pc-dependent scope). */
export function staticValue(info: DebugInfo, view: ThreadView, v: VariableInfo): Value {
  let ops: readonly Operation[] | undefined;
  try {
    const at = locationAt(info, v, pcOf(info, view) ?? 0n);
    if (at.error) return unavailableValue(v.type, `cannot read ${v.name}: ${at.error}`);
    ops = at.ops;
  } catch (e) {
    return unavailableValue(v.type, `cannot read the location of ${v.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!ops || ops.length === 0) return unavailableValue(v.type, OPTIMIZED_OUT);
  const r = evaluate(ops, { ...context(view), addressSize: v.die.unit.header.addressSize });
  if (!r.ok) return unavailableValue(v.type, `cannot evaluate the location of ${v.name}: ${r.error}`);
  return placeLocation(info, view, v, r.location);
}

function placeLocation(info: DebugInfo, view: ThreadView, v: VariableInfo, loc: Location): Value {
  const type = v.type;
  const size = sizeOf(type);
  switch (loc.kind) {
    case 'empty':
      return unavailableValue(type, OPTIMIZED_OUT);
    case 'register': {
      const fn = view.program.functions.get(view.function);
      if (fn && typeof loc.register === 'string' && !info.regdefs.mayBeWritten(fn, view.pc, loc.register)) {
        // Not written on any path to here: the register holds no value of this variable yet.
        return unavailableValue(type, OPTIMIZED_OUT);
      }
      const b = registerBytes(view, loc.register, size);
      if (typeof b === 'string') return unavailableValue(type, b);
      return bytesValue(type, b, typeof loc.register === 'string' ? { kind: 'register', name: loc.register } : { kind: 'none' });
    }
    case 'memory': {
      const p = placeMemory(view, loc, spaceOfClass(v.space));
      if (typeof p === 'string') return unavailableValue(type, p);
      return memoryValue(type, p.space, p.address);
    }
    case 'value':
      if (size === undefined || size > 8) return unavailableValue(type, 'a computed location too small for the type');
      return bytesValue(type, bigintBytes(loc.value, size));
    case 'implicit': {
      if (size === undefined) return unavailableValue(type, 'implicit value of an unsized type');
      const b = new Uint8Array(size);
      b.set(loc.bytes.subarray(0, size));
      return bytesValue(type, b);
    }
    case 'pieces':
      return pieces(info, view, v, type, loc.pieces);
  }
}

function registerBytes(view: ThreadView, reg: string | number, size: number | undefined): Uint8Array | string {
  if (typeof reg === 'number') return `DWARF register ${reg} is not a PTX register`;
  if (size === undefined || size > 8) return `a value of ${size ?? 'unknown'} bytes cannot live in register ${reg}`;
  const bits = view.readRegister(reg);
  if (bits === undefined) return `register ${reg} is not available in this frame`;
  return bigintBytes(bits, size);
}

function placeMemory(view: ThreadView, loc: Location & { kind: 'memory' }, declared: SpaceName | undefined): { space: SpaceName; address: bigint } | string {
  if (loc.symbolic) {
    const base = view.symbolAddress(loc.symbolic.symbol);
    if (!base) return `symbol ${loc.symbolic.symbol} is not available in this frame`;
    return { space: base.space, address: base.address + loc.symbolic.offset };
  }
  if (loc.address & SYNTHETIC) return 'the location names a symbol the program does not have';
  return { space: declared ?? 'generic', address: loc.address };
}

function pieces(info: DebugInfo, view: ThreadView, v: VariableInfo, type: DwarfType, list: readonly { location: Location; sizeInBits: number; bitOffset: number }[]): Value {
  const size = sizeOf(type);
  if (size === undefined) return unavailableValue(type, 'pieces of an unsized type');
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of list) {
    if (p.sizeInBits % 8 !== 0 || p.bitOffset !== 0) return unavailableValue(type, 'bit pieces are not supported');
    const n = p.sizeInBits / 8;
    if (at + n > size) return unavailableValue(type, 'location pieces are larger than the type');
    const l = p.location;
    let b: Uint8Array | undefined;
    if (l.kind === 'empty') return unavailableValue(type, OPTIMIZED_OUT);
    if (l.kind === 'register') {
      const fn = view.program.functions.get(view.function);
      if (fn && typeof l.register === 'string' && !info.regdefs.mayBeWritten(fn, view.pc, l.register)) return unavailableValue(type, OPTIMIZED_OUT);
      const r = registerBytes(view, l.register, n);
      if (typeof r === 'string') return unavailableValue(type, r);
      b = r;
    } else if (l.kind === 'memory') {
      const pl = placeMemory(view, l, spaceOfClass(v.space));
      if (typeof pl === 'string') return unavailableValue(type, pl);
      b = view.readMemory(pl.space, pl.address, n);
      if (!b) return unavailableValue(type, `cannot read piece at 0x${pl.address.toString(16)}`);
    } else if (l.kind === 'value') b = bigintBytes(l.value, n);
    else if (l.kind === 'implicit') b = l.bytes.subarray(0, n);
    else return unavailableValue(type, 'nested pieces');
    out.set(b.subarray(0, n), at);
    at += n;
  }
  return bytesValue(type, out);
}
