/**
 * DWARF expressions: decoding to an operation list (printable), and a stack machine that
 * evaluates a location description with callbacks for registers, memory and the frame base.
 *
 * CUDA specifics: `DW_OP_regx`/`DW_OP_bregx` operands are PTX register *names* packed as ASCII
 * into the ULEB128 value, first character in the most significant byte (0x257231 = '%','r','1' =
 * `%r1`); `DW_OP_addr` operands are relocations to PTX symbols (a kernel `.param`, a `.shared`
 * variable, the `.local` depot `__local_depotN`), kept on the operation and on the stack entry.
 */
import { DW_OP, opName } from './constants.js';
import { DwarfError, Reader, type Relocation, type SectionData } from './reader.js';

export interface Operation {
  /** Offset of the opcode within the expression. */
  readonly offset: number;
  /** Encoded size in bytes (opcode + operands). */
  readonly length: number;
  readonly code: number;
  readonly name: string;
  /** Numeric operands in order (signed operands are negative bigints). */
  readonly operands: readonly bigint[];
  /** For DW_OP_addr: the symbol the operand was relocated against. */
  readonly reloc: Relocation | undefined;
  /** For DW_OP_regx/bregx: the PTX register name packed in the operand, if it is one. */
  readonly register: string | undefined;
  /** For DW_OP_implicit_value / entry_value / const_type: the operand block. */
  readonly block: Uint8Array | undefined;
}

export interface ExprEncoding {
  readonly addressSize: number;
  readonly format: 4 | 8;
  readonly version: number;
}

/** An expression in a section: where it is, so relocations and warnings can name offsets. */
export interface Expression {
  readonly data: SectionData;
  /** Section offset of the first byte. */
  readonly offset: number;
  readonly length: number;
}

export function expressionFromBytes(bytes: Uint8Array | readonly number[], name = '<expr>'): Expression {
  const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
  return { data: { name, bytes: b, relocations: new Map() }, offset: 0, length: b.length };
}

// ---- PTX register names -----------------------------------------------------------------------

/**
 * Decode a PTX register name packed as ASCII in a `DW_OP_regx` operand (most significant byte
 * first): 0x257231 → '%r1'. Undefined when the bytes are not a plausible register name.
 */
export function ptxRegisterName(v: bigint): string | undefined {
  if (v <= 0n) return undefined;
  let s = '';
  for (let x = v; x > 0n; x >>= 8n) s = String.fromCharCode(Number(x & 0xffn)) + s;
  return /^%[A-Za-z_$][A-Za-z0-9_$]*$/.test(s) ? s : undefined;
}

/** Inverse of ptxRegisterName: '%r1' → 0x257231n. */
export function ptxRegisterValue(name: string): bigint {
  let v = 0n;
  for (const ch of name) v = (v << 8n) | BigInt(ch.charCodeAt(0) & 0xff);
  return v;
}

// ---- decoding ---------------------------------------------------------------------------------

/**
 * Decode an expression into operations. A malformed operation ends the list: the operations
 * before it are returned with `error` set (a DwarfError naming section and offset).
 */
export function decodeExpression(expr: Expression, enc: ExprEncoding): { ops: Operation[]; error: DwarfError | undefined } {
  const r = new Reader(expr.data, expr.offset, expr.offset + expr.length);
  const ops: Operation[] = [];
  try {
    while (!r.atEnd) ops.push(decodeOne(r, expr.offset, enc));
  } catch (e) {
    if (e instanceof DwarfError) return { ops, error: e };
    return { ops, error: new DwarfError({ kind: 'UnsupportedOp', op: 'expression', why: String(e) }, expr.data.name, r.offset) };
  }
  return { ops, error: undefined };
}

function decodeOne(r: Reader, base: number, enc: ExprEncoding): Operation {
  const at = r.offset;
  const code = r.u8();
  const operands: bigint[] = [];
  let reloc: Relocation | undefined;
  let register: string | undefined;
  let block: Uint8Array | undefined;
  const O = DW_OP;
  if (code >= 0x30 && code <= 0x6f) {
    // lit0..31, reg0..31: no operands
  } else if (code >= 0x70 && code <= 0x8f) {
    operands.push(r.sleb()); // bregN offset
  } else {
    switch (code) {
      case O.addr: {
        const a = r.offset;
        operands.push(r.address(enc.addressSize));
        reloc = r.relocationAt(a);
        break;
      }
      case O.const1u: case O.pick: case O.deref_size: case O.xderef_size: operands.push(BigInt(r.u8())); break;
      case O.const1s: operands.push(BigInt(r.i8())); break;
      case O.const2u: operands.push(BigInt(r.u16())); break;
      case O.const2s: case O.skip: case O.bra: operands.push(BigInt(r.i16())); break;
      case O.const4u: operands.push(BigInt(r.u32())); break;
      case O.const4s: operands.push(BigInt(r.i32())); break;
      case O.const8u: operands.push(r.u64()); break;
      case O.const8s: operands.push(r.i64()); break;
      case O.constu: case O.plus_uconst: case O.piece: case O.addrx: case O.constx:
      case O.GNU_addr_index: case O.GNU_const_index: case O.convert: case O.reinterpret:
      case O.GNU_convert: case O.GNU_reinterpret:
        operands.push(r.uleb());
        break;
      case O.consts: case O.fbreg: operands.push(r.sleb()); break;
      case O.regx: {
        const v = r.uleb();
        operands.push(v);
        register = ptxRegisterName(v);
        break;
      }
      case O.bregx: {
        const v = r.uleb();
        operands.push(v, r.sleb());
        register = ptxRegisterName(v);
        break;
      }
      case O.bit_piece: operands.push(r.uleb(), r.uleb()); break;
      case O.call2: operands.push(BigInt(r.u16())); break;
      case O.call4: operands.push(BigInt(r.u32())); break;
      case O.call_ref: operands.push(BigInt(r.sectionOffset(enc.format))); break;
      case O.implicit_value: {
        const n = r.ulebNum();
        operands.push(BigInt(n));
        block = r.bytes(n);
        break;
      }
      case O.implicit_pointer: case O.GNU_implicit_pointer:
        operands.push(BigInt(enc.version <= 2 ? Number(r.address(enc.addressSize)) : r.sectionOffset(enc.format)), r.sleb());
        break;
      case O.entry_value: case O.GNU_entry_value: {
        const n = r.ulebNum();
        operands.push(BigInt(n));
        block = r.bytes(n);
        break;
      }
      case O.const_type: case O.GNU_const_type: {
        operands.push(r.uleb());
        const n = r.u8();
        block = r.bytes(n);
        break;
      }
      case O.regval_type: case O.GNU_regval_type: {
        const v = r.uleb();
        operands.push(v, r.uleb());
        register = ptxRegisterName(v);
        break;
      }
      case O.deref_type: case O.xderef_type: case O.GNU_deref_type: operands.push(BigInt(r.u8()), r.uleb()); break;
      case O.GNU_parameter_ref: operands.push(BigInt(r.u32())); break;
      case O.deref: case O.dup: case O.drop: case O.over: case O.swap: case O.rot: case O.xderef:
      case O.abs: case O.and: case O.div: case O.minus: case O.mod: case O.mul: case O.neg: case O.not:
      case O.or: case O.plus: case O.shl: case O.shr: case O.shra: case O.xor: case O.eq: case O.ge:
      case O.gt: case O.le: case O.lt: case O.ne: case O.nop: case O.push_object_address:
      case O.form_tls_address: case O.call_frame_cfa: case O.stack_value: case O.GNU_push_tls_address:
      case O.GNU_uninit:
        break;
      default:
        r.fail({ kind: 'UnknownOp', op: code }, at);
    }
  }
  return { offset: at - base, length: r.offset - at, code, name: opName(code), operands, reloc, register, block };
}

// ---- printing ---------------------------------------------------------------------------------

function hexb(v: bigint): string {
  return (v < 0n ? '-0x' + (-v).toString(16) : '0x' + v.toString(16));
}

/** Print one operation, registers and symbols by name: `DW_OP_regx %r1`, `DW_OP_addr vecAdd_param_0`. */
export function formatOperation(op: Operation): string {
  const c = op.code;
  if (c === DW_OP.addr) {
    if (op.reloc && op.reloc.target.kind !== 'unresolved') {
      const add = op.reloc.addend;
      return `${op.name} ${op.reloc.symbol}${add === 0n ? '' : add > 0n ? `+${add}` : `${add}`}`;
    }
    return `${op.name} ${hexb(op.operands[0] ?? 0n)}`;
  }
  if (c === DW_OP.regx || c === DW_OP.regval_type || c === DW_OP.GNU_regval_type) {
    const reg = op.register ?? hexb(op.operands[0] ?? 0n);
    return c === DW_OP.regx ? `${op.name} ${reg}` : `${op.name} ${reg} ${hexb(op.operands[1] ?? 0n)}`;
  }
  if (c === DW_OP.bregx) {
    const reg = op.register ?? hexb(op.operands[0] ?? 0n);
    const off = op.operands[1] ?? 0n;
    return `${op.name} ${reg}${off < 0n ? off : `+${off}`}`;
  }
  if (c >= 0x70 && c <= 0x8f) return `${op.name} ${op.operands[0]! < 0n ? op.operands[0] : `+${op.operands[0]}`}`;
  const signed = c === DW_OP.consts || c === DW_OP.fbreg || c === DW_OP.const1s || c === DW_OP.const2s ||
    c === DW_OP.const4s || c === DW_OP.const8s || c === DW_OP.skip || c === DW_OP.bra;
  const parts = op.operands.map((v) => (signed ? v.toString() : hexb(v)));
  if (op.block && (c === DW_OP.implicit_value || c === DW_OP.const_type || c === DW_OP.GNU_const_type)) {
    parts.push(Array.from(op.block, (b) => '0x' + b.toString(16).padStart(2, '0')).join(' '));
  }
  return parts.length ? `${op.name} ${parts.join(' ')}` : op.name;
}

/** Print an operation list: "DW_OP_addr __local_depot0, DW_OP_plus_uconst 0x10". */
export function formatOperations(ops: readonly Operation[]): string {
  return ops.map(formatOperation).join(', ');
}

// ---- evaluation -------------------------------------------------------------------------------

/** An address relative to a PTX symbol: `symbol + offset`. */
export interface SymbolicAddress {
  readonly symbol: string;
  readonly offset: bigint;
  /** The symbol's state space ('local', 'param', 'shared', 'global', ...), when it is a variable. */
  readonly space: string | undefined;
}

export type Location =
  /** The value lives in a register (PTX name, or a DWARF register number). */
  | { readonly kind: 'register'; readonly register: string | number }
  /** The value is in memory at `address`; `symbolic` when it is relative to a PTX symbol. */
  | { readonly kind: 'memory'; readonly address: bigint; readonly symbolic: SymbolicAddress | undefined }
  /** The expression computed the value itself (DW_OP_stack_value). */
  | { readonly kind: 'value'; readonly value: bigint }
  | { readonly kind: 'implicit'; readonly bytes: Uint8Array }
  /** No location (optimised out / empty expression). */
  | { readonly kind: 'empty' }
  | { readonly kind: 'pieces'; readonly pieces: readonly Piece[] };

export interface Piece {
  readonly location: Location;
  readonly sizeInBits: number;
  readonly bitOffset: number;
}

/** The debugger's side of evaluation. Every callback is optional; a missing one is an error when needed. */
export interface EvalContext {
  readonly addressSize?: number;
  /** Value of a register (PTX name like '%r1', or a DWARF number). */
  readRegister?(reg: string | number): bigint | undefined;
  /** Read `size` bytes little-endian at `address` (in `space` when the address is symbol-relative). */
  readMemory?(address: bigint, size: number, space: string | undefined): bigint | undefined;
  /** The frame base (value of the subprogram's DW_AT_frame_base), for DW_OP_fbreg. */
  frameBase?(): bigint | undefined;
  /** The canonical frame address, for DW_OP_call_frame_cfa. */
  callFrameCfa?(): bigint | undefined;
  /** The object address, for DW_OP_push_object_address. */
  objectAddress?(): bigint | undefined;
  /** Evaluation step limit (default 10000). */
  readonly maxSteps?: number;
}

export type EvalResult =
  | { readonly ok: true; readonly location: Location }
  | { readonly ok: false; readonly error: string; readonly location: Location | undefined };

interface Entry {
  value: bigint;
  sym: SymbolicAddress | undefined;
}

class EvalFailure extends Error {}

/**
 * Evaluate an operation list to a location. Never throws: failures (stack underflow, missing
 * callback, unknown op) come back as `{ ok: false, error }`.
 */
export function evaluate(ops: readonly Operation[], ctx: EvalContext = {}): EvalResult {
  const bits = BigInt((ctx.addressSize ?? 8) * 8);
  const wrap = (v: bigint): bigint => BigInt.asUintN(Number(bits), v);
  const signed = (v: bigint): bigint => BigInt.asIntN(Number(bits), v);
  const stack: Entry[] = [];
  const pieces: Piece[] = [];
  let pending: Location | undefined; // register / implicit / stack_value location awaiting a piece
  let stackValue = false;
  const byOffset = new Map<number, number>();
  ops.forEach((op, i) => byOffset.set(op.offset, i));
  const fail = (msg: string): never => {
    throw new EvalFailure(msg);
  };
  const pop = (op: Operation): Entry => stack.pop() ?? fail(`expression stack underflow at ${op.name}`);
  const push = (value: bigint, sym?: SymbolicAddress): void => {
    stack.push({ value: wrap(value), sym });
  };
  const need = <T>(v: T | undefined, what: string): T => (v === undefined ? fail(what) : v);
  const memLocation = (e: Entry): Location => ({ kind: 'memory', address: e.value, symbolic: e.sym });
  const current = (): Location => {
    if (pending) return pending;
    if (stack.length === 0) return { kind: 'empty' };
    const top = stack[stack.length - 1]!;
    return stackValue ? { kind: 'value', value: top.value } : memLocation(top);
  };
  const limit = ctx.maxSteps ?? 10000;
  let steps = 0;
  try {
    for (let pc = 0; pc < ops.length; ) {
      if (++steps > limit) fail(`expression did not finish within ${limit} steps`);
      const op = ops[pc]!;
      const c = op.code;
      const a0 = op.operands[0] ?? 0n;
      pc++;
      if (c >= 0x30 && c <= 0x4f) { push(BigInt(c - 0x30)); continue; }
      if (c >= 0x50 && c <= 0x6f) { pending = { kind: 'register', register: c - 0x50 }; continue; }
      if (c >= 0x70 && c <= 0x8f) {
        const reg = c - 0x70;
        push(need(ctx.readRegister?.(reg), `register ${reg} is not available`) + a0);
        continue;
      }
      switch (c) {
        case DW_OP.addr: {
          const rel = op.reloc;
          const sym = rel && rel.target.kind !== 'unresolved'
            ? { symbol: rel.symbol, offset: rel.addend, space: rel.target.kind === 'variable' ? rel.target.space : undefined }
            : undefined;
          push(a0, sym);
          break;
        }
        case DW_OP.const1u: case DW_OP.const1s: case DW_OP.const2u: case DW_OP.const2s: case DW_OP.const4u:
        case DW_OP.const4s: case DW_OP.const8u: case DW_OP.const8s: case DW_OP.constu: case DW_OP.consts:
          push(a0);
          break;
        case DW_OP.dup: { const e = stack[stack.length - 1] ?? fail(`expression stack underflow at ${op.name}`); stack.push({ ...e }); break; }
        case DW_OP.drop: pop(op); break;
        case DW_OP.over: { const e = stack[stack.length - 2] ?? fail(`expression stack underflow at ${op.name}`); stack.push({ ...e }); break; }
        case DW_OP.pick: {
          const e = stack[stack.length - 1 - Number(a0)] ?? fail(`expression stack underflow at ${op.name}`);
          stack.push({ ...e });
          break;
        }
        case DW_OP.swap: { const a = pop(op); const b = pop(op); stack.push(a, b); break; }
        case DW_OP.rot: { const a = pop(op); const b = pop(op); const d = pop(op); stack.push(a, d, b); break; }
        case DW_OP.deref: case DW_OP.deref_size: case DW_OP.xderef: case DW_OP.xderef_size: {
          const size = c === DW_OP.deref || c === DW_OP.xderef ? (ctx.addressSize ?? 8) : Number(a0);
          const e = pop(op);
          if (c === DW_OP.xderef || c === DW_OP.xderef_size) pop(op);
          const v = need(ctx.readMemory?.(e.value, size, e.sym?.space), `memory at 0x${e.value.toString(16)} is not readable`);
          push(BigInt.asUintN(size * 8, v));
          break;
        }
        case DW_OP.abs: { const e = pop(op); const v = signed(e.value); push(v < 0n ? -v : v); break; }
        case DW_OP.neg: push(-signed(pop(op).value)); break;
        case DW_OP.not: push(~pop(op).value); break;
        case DW_OP.plus_uconst: {
          const e = pop(op);
          push(e.value + a0, e.sym ? { ...e.sym, offset: e.sym.offset + a0 } : undefined);
          break;
        }
        case DW_OP.plus: {
          const b = pop(op); const a = pop(op);
          const sym = a.sym && !b.sym ? { ...a.sym, offset: a.sym.offset + b.value } : b.sym && !a.sym ? { ...b.sym, offset: b.sym.offset + a.value } : undefined;
          push(a.value + b.value, sym);
          break;
        }
        case DW_OP.minus: {
          const b = pop(op); const a = pop(op);
          push(a.value - b.value, a.sym && !b.sym ? { ...a.sym, offset: a.sym.offset - b.value } : undefined);
          break;
        }
        case DW_OP.and: case DW_OP.or: case DW_OP.xor: case DW_OP.mul: case DW_OP.div: case DW_OP.mod:
        case DW_OP.shl: case DW_OP.shr: case DW_OP.shra:
        case DW_OP.eq: case DW_OP.ne: case DW_OP.lt: case DW_OP.gt: case DW_OP.le: case DW_OP.ge: {
          const b = pop(op).value; const a = pop(op).value;
          const sa = signed(a); const sb = signed(b);
          let r: bigint;
          switch (c) {
            case DW_OP.and: r = a & b; break;
            case DW_OP.or: r = a | b; break;
            case DW_OP.xor: r = a ^ b; break;
            case DW_OP.mul: r = a * b; break;
            case DW_OP.div: if (sb === 0n) fail('division by zero in expression'); r = sa / sb; break;
            case DW_OP.mod: if (b === 0n) fail('division by zero in expression'); r = a % b; break;
            case DW_OP.shl: r = b >= bits ? 0n : a << b; break;
            case DW_OP.shr: r = b >= bits ? 0n : a >> b; break;
            case DW_OP.shra: r = sa >> (b >= bits ? bits - 1n : b); break;
            case DW_OP.eq: r = sa === sb ? 1n : 0n; break;
            case DW_OP.ne: r = sa !== sb ? 1n : 0n; break;
            case DW_OP.lt: r = sa < sb ? 1n : 0n; break;
            case DW_OP.gt: r = sa > sb ? 1n : 0n; break;
            case DW_OP.le: r = sa <= sb ? 1n : 0n; break;
            default: r = sa >= sb ? 1n : 0n; break;
          }
          push(r);
          break;
        }
        case DW_OP.skip: case DW_OP.bra: {
          if (c === DW_OP.bra && pop(op).value === 0n) break;
          // Target: offset of the next op + operand, in bytes.
          const target = op.offset + op.length + Number(a0);
          const last = ops[ops.length - 1]!;
          const idx = byOffset.get(target);
          if (idx !== undefined) pc = idx;
          else if (target === last.offset + last.length) pc = ops.length;
          else fail(`${op.name} to offset ${target}, which is not an operation boundary`);
          break;
        }
        case DW_OP.regx: pending = { kind: 'register', register: op.register ?? Number(a0) }; break;
        case DW_OP.bregx: {
          const reg = op.register ?? Number(a0);
          push(need(ctx.readRegister?.(reg), `register ${typeof reg === 'string' ? reg : reg} is not available`) + (op.operands[1] ?? 0n));
          break;
        }
        case DW_OP.fbreg: push(need(ctx.frameBase?.(), 'no frame base for DW_OP_fbreg') + a0); break;
        case DW_OP.call_frame_cfa: push(need(ctx.callFrameCfa?.(), 'no call frame address for DW_OP_call_frame_cfa')); break;
        case DW_OP.push_object_address: push(need(ctx.objectAddress?.(), 'no object address')); break;
        case DW_OP.nop: break;
        case DW_OP.stack_value: stackValue = true; break;
        case DW_OP.implicit_value: pending = { kind: 'implicit', bytes: op.block ?? new Uint8Array(0) }; break;
        case DW_OP.piece: case DW_OP.bit_piece: {
          const sizeInBits = c === DW_OP.piece ? Number(a0) * 8 : Number(a0);
          const bitOffset = c === DW_OP.bit_piece ? Number(op.operands[1] ?? 0n) : 0;
          const loc = current();
          if (!pending && stack.length) stack.pop();
          pieces.push({ location: loc, sizeInBits, bitOffset });
          pending = undefined;
          stackValue = false;
          break;
        }
        default:
          fail(`${op.name} is not supported by the evaluator`);
      }
    }
  } catch (e) {
    const msg = e instanceof EvalFailure ? e.message : `internal error: ${String(e)}`;
    return { ok: false, error: msg, location: undefined };
  }
  if (pieces.length) return { ok: true, location: { kind: 'pieces', pieces } };
  return { ok: true, location: current() };
}
