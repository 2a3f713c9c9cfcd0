/**
 * Bounds on declaration sizes, checked before anything is allocated for them. A mutated or
 * hostile `.reg .b64 %rd<18446744073709551616>;` or `.global .b8 a[1e15]` must be a located
 * error, not a hang or an out-of-memory crash. The limits sit well above what nvcc emits
 * (a large `-G` Thrust function declares a few thousand registers) and at the hardware's own
 * limits where there is one.
 */
import type { FunctionDecl, PtxModule, Span, Statement, StructDecl, VarDecl } from './ast.js';
import { DEVICE_LIMITS } from './device-limits.js';

/** Virtual registers one function may declare (each is a 256-byte slot of every warp's frame). */
export const MAX_REGISTERS = 65536;
/** Bytes of one variable, by state space. */
const MAX_BYTES: Readonly<Record<string, number>> = {
  shared: DEVICE_LIMITS.sharedPerBlock + DEVICE_LIMITS.sharedReserved,
  local: DEVICE_LIMITS.localPerThread,
  param: 64 * 1024,
  const: DEVICE_LIMITS.constBank
};
const MAX_OTHER_BYTES = 1 << 30; // global variables: 1 GiB

type Report = (message: string, span: Span) => void;

/**
 * Whether a declaration that is not a register range passes checkDeclarationLimits' bounds: its
 * dimensions are sizes and its `bytes` are within its state space's (check's body shortcut,
 * body-keys.ts, decides without reporting).
 */
export function withinLimits(d: VarDecl, bytes: number): boolean {
  for (const dim of d.dims) if (dim !== null && (!Number.isSafeInteger(dim) || dim < 0)) return false;
  if (d.space === 'reg') return true;
  return Number.isFinite(bytes) && bytes <= (MAX_BYTES[d.space] ?? MAX_OTHER_BYTES);
}

/**
 * Reports every declaration over its bound and returns how many there were; `size` computes a
 * declaration's bytes (it may be NaN or Infinity for absurd dimensions).
 */
export function checkDeclarationLimits(module: PtxModule, size: (d: VarDecl) => number, report: Report): number {
  const c = limitChecker(size, report);
  for (const item of module.items) {
    if (item.kind === 'var') c.check(item, undefined);
    else if (item.kind === 'struct') checkStruct(item, c.check);
    // a deferred body is checked when it is resolved (checkFunctionLimits)
    else if (item.kind === 'function') checkFunction(item, c.check, c.walk, item.deferred === undefined);
  }
  return c.bad();
}

/** The bounds of one function's declarations (a body read after the module's check). */
export function checkFunctionLimits(fn: FunctionDecl, size: (d: VarDecl) => number, report: Report): number {
  const c = limitChecker(size, report);
  checkFunction(fn, c.check, c.walk, true);
  return c.bad();
}

function limitChecker(size: (d: VarDecl) => number, report: Report): {
  check: (d: VarDecl, regsSoFar: { n: number } | undefined) => void;
  walk: (body: readonly Statement[], regs: { n: number }) => void;
  bad: () => number;
} {
  let bad = 0;
  const check = (d: VarDecl, regsSoFar: { n: number } | undefined): void => {
    if (d.rangeCount !== undefined) {
      const n = d.rangeCount;
      if (!Number.isSafeInteger(n) || n < 0 || n > MAX_REGISTERS) {
        report(`register range <${n}> is out of bounds (at most ${MAX_REGISTERS} registers)`, d.span);
        bad++;
        return;
      }
      if (regsSoFar) {
        regsSoFar.n += n;
        if (regsSoFar.n > MAX_REGISTERS && regsSoFar.n - n <= MAX_REGISTERS) {
          report(`the function declares more than ${MAX_REGISTERS} registers`, d.span);
          bad++;
        }
      }
      return;
    }
    for (const dim of d.dims) {
      if (dim !== null && (!Number.isSafeInteger(dim) || dim < 0)) {
        report(`array dimension ${dim} is not a size`, d.span);
        bad++;
        return;
      }
    }
    if (d.space === 'reg') return;
    const limit = MAX_BYTES[d.space] ?? MAX_OTHER_BYTES;
    const bytes = size(d);
    if (!Number.isFinite(bytes) || bytes > limit) {
      report(`.${d.space} variable '${d.name}' is too large (${Number.isFinite(bytes) ? `${bytes} bytes` : 'unbounded'}; at most ${limit})`, d.span);
      bad++;
    }
  };
  const walk = (body: readonly Statement[], regs: { n: number }): void => {
    for (const s of body) {
      if (s.kind === 'var') check(s, regs);
      else if (s.kind === 'block') walk(s.body, regs);
    }
  };
  return { check, walk, bad: () => bad };
}

function checkStruct(st: StructDecl, check: (d: VarDecl, r: undefined) => void): void {
  for (const f of st.fields) check(f, undefined);
}

function checkFunction(
  fn: FunctionDecl,
  check: (d: VarDecl, r: { n: number }) => void,
  walk: (body: readonly Statement[], r: { n: number }) => void,
  withBody: boolean,
): void {
  const regs = { n: 0 };
  for (const p of [...fn.rets, ...fn.params]) check(p, regs);
  if (withBody && fn.body) walk(fn.body, regs);
}
