/**
 * System calls of the PTX interop guide, executed by the machine when a `call` targets an
 * extern function: vprintf (CUDA printf formatting), malloc, free, __assertfail.
 */
import { Access } from './probe.js';
import type { CallInfo } from './compiled.js';
import { Fault } from './fault.js';
import { lowestLane } from './int64.js';
import { deviceRuntimeCall } from './cdp.js';
import { coordsOf } from './launch.js';
import { GLOBAL_HI, Space } from './memory.js';
import type { Machine } from './machine.js';
import { localWritten, type Warp } from './state.js';

// with the other address high words (memory.ts); re-exported for the callers that take it from here
export { FUNC_HI } from './memory.js';

function argWords(w: Warp, ref: CallInfo['args'][number] | undefined, lane: number): [number, number] {
  if (!ref) return [0, 0];
  if (ref.kind === 'reg') return [w.frame.u32[ref.base + 2 * lane]!, w.frame.u32[ref.base + 2 * lane + 1]!];
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  const dv = new DataView(w.local.u8.buffer);
  return [dv.getUint32(idx, true), ref.size >= 8 ? dv.getUint32(idx + 4, true) : 0];
}

function setRet(w: Warp, ref: CallInfo['rets'][number] | undefined, lane: number, lo: number, hi: number): void {
  if (!ref) return;
  if (ref.kind === 'reg') {
    w.frame.u32[ref.base + 2 * lane] = lo >>> 0;
    w.frame.u32[ref.base + 2 * lane + 1] = hi >>> 0;
    return;
  }
  const idx = lane * w.localStride + w.frame.localBase + ref.offset;
  localWritten(w, lane, w.frame.localBase + ref.offset, ref.size >= 8 ? 8 : 4);
  const dv = new DataView(w.local.u8.buffer);
  dv.setUint32(idx, lo >>> 0, true);
  if (ref.size >= 8) dv.setUint32(idx + 4, hi >>> 0, true);
}

function readByte(w: Warp, lo: number, hi: number, lane: number): number {
  const idx = w.translate(Space.Generic, lo >>> 0, hi, 1, lane, Access.Read);
  return w.xbank.u8[idx]!;
}

export function readCString(w: Warp, lo: number, hi: number, lane: number, max = 4096): string {
  const bytes: number[] = [];
  for (let i = 0; i < max; i++) {
    const b = readByte(w, lo + i, hi, lane);
    if (b === 0) break;
    bytes.push(b);
  }
  return Buffer.from(bytes).toString('latin1');
}

export function systemCall(m: Machine, w: Warp, name: string, info: CallInfo, lanes: number): boolean {
  switch (name) {
    case 'vprintf':
      for (let l = 0; l < 32; l++) {
        if (!((lanes >>> l) & 1)) continue;
        const [flo, fhi] = argWords(w, info.args[0], l);
        const [alo, ahi] = argWords(w, info.args[1], l);
        const text = formatPrintf(w, l, readCString(w, flo, fhi, l), alo, ahi);
        m.stdout += text;
        setRet(w, info.rets[0], l, text.length, 0);
      }
      return true;
    case 'malloc':
      for (let l = 0; l < 32; l++) {
        if (!((lanes >>> l) & 1)) continue;
        const [lo, hi] = argWords(w, info.args[0], l);
        const size = hi * 4294967296 + lo;
        // the whole size_t: a size past the heap gets NULL, never one cut to 32 bits
        const off = m.arena.malloc(size);
        setRet(w, info.rets[0], l, off, off ? GLOBAL_HI : 0);
      }
      return true;
    case 'free':
      for (let l = 0; l < 32; l++) {
        if (!((lanes >>> l) & 1)) continue;
        const [lo, hi] = argWords(w, info.args[0], l);
        if (lo === 0 && hi === 0) continue;
        if (hi !== GLOBAL_HI || !m.arena.free(lo)) {
          const f = new Fault('heap', `free() of 0x${((BigInt(hi) << 32n) | BigInt(lo)).toString(16)}, which is not a live malloc() block`);
          f.lane = l;
          throw f;
        }
      }
      return true;
    case '__assertfail': case '__assert_fail': {
      const l = lowestLane(lanes);
      const [mlo, mhi] = argWords(w, info.args[0], l);
      const [flo, fhi] = argWords(w, info.args[1], l);
      const [line] = argWords(w, info.args[2], l);
      const [nlo, nhi] = argWords(w, info.args[3], l);
      const msg = safe(() => readCString(w, mlo, mhi, l));
      const file = safe(() => readCString(w, flo, fhi, l));
      const fn = safe(() => readCString(w, nlo, nhi, l));
      const thread = coordsOf(w.tidBase + l, m.launch.block);
      const f = new Fault('assert', `${file}:${line}: ${fn}: block: [${w.cta.ctaid.join(',')}], thread: [${thread.join(',')}] Assertion \`${msg}\` failed.`);
      f.lane = l;
      throw f;
    }
    default:
      return deviceRuntimeCall(m, w, name, info, lanes);
  }
}

function safe(f: () => string): string {
  try {
    return f();
  } catch {
    return '?';
  }
}

/** C printf over CUDA's packed argument buffer (each argument at its natural alignment). */
export function formatPrintf(w: Warp, lane: number, fmt: string, alo: number, ahi: number): string {
  let off = 0;
  // .address_size 32: pointers, long, size_t and ptrdiff_t are 4 bytes (the 32-bit ABI)
  const word = w.mem.addr32 === true ? 4 : 8;
  const next = (size: number): [number, number] => {
    off = Math.ceil(off / size) * size;
    const lo = readWord(w, alo + off, ahi, lane);
    const hi = size === 8 ? readWord(w, alo + off + 4, ahi, lane) : 0;
    off += size;
    return [lo, hi];
  };
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i]!;
    if (ch !== '%') { out += ch; continue; }
    const m = /^%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?([diouxXcsfFeEgGaAp%])/.exec(fmt.slice(i));
    if (!m) { out += ch; continue; }
    i += m[0].length - 1;
    const [, flags = '', widthS, precS, len = '', conv = ''] = m;
    if (conv === '%') { out += '%'; continue; }
    const width = widthS === '*' ? next(4)[0] | 0 : widthS ? Number(widthS) : undefined;
    const prec = precS === '*' ? next(4)[0] | 0 : precS !== undefined ? Number(precS || '0') : undefined;
    let body: string;
    let signed = '';
    switch (conv) {
      case 'd': case 'i': {
        const big = len === 'll' || len === 'j' || ((len === 'l' || len === 'z' || len === 't') && word === 8);
        const [lo, hi] = next(big ? 8 : 4);
        let v = big ? BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)) : BigInt(lo | 0);
        if (len === 'h') v = BigInt((lo << 16) >> 16);
        if (len === 'hh') v = BigInt((lo << 24) >> 24);
        const neg = v < 0n;
        body = (neg ? -v : v).toString();
        if (prec !== undefined) body = prec === 0 && v === 0n ? '' : body.padStart(prec, '0');
        signed = neg ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        const big = len === 'll' || len === 'j' || ((len === 'l' || len === 'z' || len === 't') && word === 8);
        const [lo, hi] = next(big ? 8 : 4);
        let v = big ? (BigInt(hi) << 32n) | BigInt(lo) : BigInt(lo >>> 0);
        if (len === 'h') v = BigInt(lo & 0xffff);
        if (len === 'hh') v = BigInt(lo & 0xff);
        body = v.toString(conv === 'u' ? 10 : conv === 'o' ? 8 : 16);
        if (conv === 'X') body = body.toUpperCase();
        if (prec !== undefined) body = prec === 0 && v === 0n ? '' : body.padStart(prec, '0');
        if (flags.includes('#') && v !== 0n) body = (conv === 'o' ? '0' : conv === 'x' ? '0x' : conv === 'X' ? '0X' : '') + body;
        break;
      }
      case 'c': body = String.fromCharCode(next(4)[0] & 255); break;
      case 's': {
        const [lo, hi] = next(word);
        body = lo === 0 && hi === 0 ? '(null)' : readCString(w, lo, hi, lane);
        if (prec !== undefined) body = body.slice(0, prec);
        break;
      }
      case 'p': {
        const [lo, hi] = next(word);
        body = '0x' + ((BigInt(hi) << 32n) | BigInt(lo)).toString(16);
        break;
      }
      default: {
        const [lo, hi] = next(8);
        const dv = new DataView(new ArrayBuffer(8));
        dv.setUint32(0, lo, true);
        dv.setUint32(4, hi, true);
        const x = dv.getFloat64(0, true);
        const r = formatFloat(x, conv, prec, flags);
        signed = r.sign;
        body = r.body;
      }
    }
    let s = signed + body;
    if (width !== undefined && s.length < width) {
      if (flags.includes('-')) s = s.padEnd(width, ' ');
      else if (flags.includes('0') && !'sc'.includes(conv) && !(prec !== undefined && 'diouxX'.includes(conv))) s = signed + body.padStart(width - signed.length, '0');
      else s = s.padStart(width, ' ');
    }
    out += s;
  }
  return out;
}

function readWord(w: Warp, lo: number, hi: number, lane: number): number {
  const idx = w.translate(Space.Generic, lo >>> 0, hi, 4, lane, Access.Read);
  return w.xbank.u32[idx >>> 2]!;
}

function formatFloat(x: number, conv: string, precIn: number | undefined, flags: string): { sign: string; body: string } {
  const neg = x < 0 || Object.is(x, -0);
  const sign = neg ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  const a = Math.abs(x);
  const upper = conv === conv.toUpperCase();
  if (Number.isNaN(x)) return { sign: x < 0 ? '-' : sign === '-' ? '' : sign, body: upper ? 'NAN' : 'nan' };
  if (!Number.isFinite(a)) return { sign, body: upper ? 'INF' : 'inf' };
  const prec = precIn ?? 6;
  const lc = conv.toLowerCase();
  let body: string;
  if (lc === 'f') body = toFixed(a, prec);
  else if (lc === 'e') body = expForm(a, prec);
  else if (lc === 'g') {
    const p = prec === 0 ? 1 : prec;
    const e = a === 0 ? 0 : Number(expForm(a, p - 1).split('e')[1]);
    if (e < -4 || e >= p) {
      body = expForm(a, p - 1);
      if (!flags.includes('#')) body = body.replace(/\.?0+e/, 'e');
    } else {
      body = toFixed(a, p - 1 - e);
      if (!flags.includes('#') && body.includes('.')) body = body.replace(/\.?0+$/, '');
    }
  } else {
    body = hexFloat(a, precIn);
  }
  if (flags.includes('#') && prec === 0 && !body.includes('.') && lc !== 'g') body = body.replace(/^(\d+)/, '$1.');
  return { sign, body: upper ? body.toUpperCase() : body };
}

/** Exact decimal rendering like glibc: the double's exact value rounded half-to-even. */
function toFixed(a: number, prec: number): string {
  const q = scaledRound(a, prec);
  const digits = q.toString().padStart(prec + 1, '0');
  return prec > 0 ? `${digits.slice(0, -prec)}.${digits.slice(-prec)}` : digits;
}

/** round(a * 10^p) exactly, ties to even (a >= 0, finite; p may be negative). */
function scaledRound(a: number, p: number): bigint {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, a);
  const bits = dv.getBigUint64(0);
  const be = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2: number;
  if (be === 0) e2 = -1074;
  else { mant |= 1n << 52n; e2 = be - 1075; }
  let num = mant;
  let den = 1n;
  if (e2 >= 0) num <<= BigInt(e2); else den <<= BigInt(-e2);
  if (p >= 0) num *= 10n ** BigInt(p); else den *= 10n ** BigInt(-p);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && (q & 1n) === 1n)) q++;
  return q;
}

function expForm(a: number, prec: number): string {
  if (a === 0) return `${prec > 0 ? '0.' + '0'.repeat(prec) : '0'}e+00`;
  let e = Math.floor(Math.log10(a));
  let q = scaledRound(a, prec - e);
  const limit = 10n ** BigInt(prec + 1);
  if (q >= limit) { e++; q = scaledRound(a, prec - e); }
  else if (q < limit / 10n) { e--; q = scaledRound(a, prec - e); }
  const s = q.toString();
  const mant = prec > 0 ? `${s[0]}.${s.slice(1)}` : s;
  return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function hexFloat(a: number, prec: number | undefined): string {
  if (a === 0) return '0x0p+0';
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, a);
  const bits = dv.getBigUint64(0);
  let e = Number((bits >> 52n) & 0x7ffn);
  const mant = bits & ((1n << 52n) - 1n);
  let lead = 1;
  if (e === 0) { lead = 0; e = -1022; } else e -= 1023;
  let hex = mant.toString(16).padStart(13, '0');
  if (prec === undefined) hex = hex.replace(/0+$/, '');
  else hex = hex.slice(0, prec).padEnd(prec, '0');
  return `0x${lead}${hex ? '.' + hex : ''}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}
