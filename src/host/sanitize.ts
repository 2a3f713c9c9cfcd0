/**
 * compute-sanitizer's reports for `ptxdbg sanitize`, line for line as its documentation shows
 * them: every line prefixed "========= ", a record per error ended by a bare prefix line, the
 * host backtrace of the launch or failed call, and the summary. Locations are
 * `kernel(int *, int)+0x11 in file.cu:12`: the demangled function and, after `+0x`, the index of
 * the PTX instruction in its function (compute-sanitizer's offset is a SASS byte offset; ptxdbg
 * runs PTX, so its offsets are PTX instruction numbers, the `PTX N` of `ptxdbg run`'s reports).
 */
import { basename } from 'node:path';
import type { FaultReport } from '../exec/machine.js';
import type { RaceEntry, BarrierError, AccessReport } from '../races/types.js';
import type { Device } from './device.js';
import { WINDOW_BASE } from './device.js';
import type { InitFinding } from './initcheck.js';
import { displayName } from './demangle.js';
import { hostFrameLines, type HostFrame } from './backtrace.js';
import type { ApiErrorReport } from './server.js';

export const PREFIX = '========= ';

/** A byte count as compute-sanitizer prints it in records: `1,024`. */
export const bytes = (n: number | bigint): string => BigInt(n).toLocaleString('en-US');

const at = (fn: string, pc: number, file: string | undefined | null, line: number): string =>
  `${displayName(fn)}+0x${pc.toString(16)}${file ? ` in ${basename(file)}:${line}` : ''}`;

const coords = (c: readonly number[]): string => `(${c.join(',')})`;

/** compute-sanitizer's name of the space an access went to (a generic address by its window). */
function spaceName(f: FaultReport): string {
  let s = f.space;
  if ((s === 'generic' || s === undefined) && f.address !== undefined) {
    const hi = Number(f.address >> 32n);
    s = hi === 0x7e00 ? 'shared' : hi === 0x7d00 ? 'local' : 'global';
  }
  return s === 'shared' ? '__shared__' : s === 'local' ? '__local__' : s === 'global' || s === 'generic' ? '__global__' : `__${s}__`;
}

/** A memcheck record for a kernel fault, or undefined for faults memcheck does not report. */
export function memcheckError(f: FaultReport, device: Device, launchFrames: readonly HostFrame[]): string[] | undefined {
  const lines: string[] = [];
  const thread = f.thread ? `by thread ${coords(f.thread)} in block ${coords(f.block!)}` : '';
  const m = /(read|write) of (\d+) bytes/.exec(f.message);
  if (f.kind === 'oob' || f.kind === 'invalid' || f.kind === 'misaligned' || f.kind === 'readonly') {
    // "Invalid" for misaligned accesses too: the Address line says which (the documented record)
    const what = 'Invalid';
    const access = f.kind === 'readonly' ? 'write' : m?.[1] ?? 'access';
    lines.push(`${what} ${spaceName(f)} ${access} of size ${m?.[2] ?? '?'} bytes`);
    lines.push(`    at ${at(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
    if (f.address !== undefined) {
      lines.push(`    Address 0x${f.address.toString(16)} ${f.kind === 'misaligned' ? 'is misaligned' : 'is out of bounds'}`);
      const near = spaceName(f) === '__global__' ? nearest(device, f.address) : undefined;
      if (near) lines.push(`    and is ${near}`);
    }
  } else if (f.kind === 'assert' || f.kind === 'trap' || f.kind === 'brkpt') {
    // compute-sanitizer's documentation shows no record for these: ptxdbg's own words
    lines.push(f.kind === 'assert' ? 'Assertion failed' : f.kind === 'trap' ? 'Device-side trap' : 'Device-side breakpoint');
    lines.push(`    at ${at(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
    lines.push(`    ${f.message}`);
  } else if (f.kind === 'heap') {
    lines.push(`Malloc/Free error encountered : ${f.message}`);
    lines.push(`    at ${at(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
  } else return undefined;
  for (const c of f.callers) lines.push(`    Device Frame: ${at(c.function, c.pc, c.file, c.line)}`);
  lines.push(...hostFrameLines(launchFrames, 'kernel launch time'));
  return lines;
}

/** Where an address lies from the nearest live allocation (compute-sanitizer's distances). */
function nearest(device: Device, address: bigint): string | undefined {
  let best: { dist: bigint; text: string } | undefined;
  for (const a of device.allocations()) {
    const lo = WINDOW_BASE + BigInt(a.base), last = lo + BigInt(Math.max(a.size, 1)) - 1n;
    const where = `the nearest allocation at 0x${lo.toString(16)} of size ${bytes(a.size)} bytes`;
    // "1 bytes after" is the byte just past the end: compute-sanitizer counts from the last byte
    const [dist, text] = address < lo ? [lo - address, `${bytes(lo - address)} bytes before ${where}`]
      : address > last ? [address - last, `${bytes(address - last)} bytes after ${where}`]
        : [0n, `inside ${where}`];
    if (!best || dist < best.dist) best = { dist, text };
  }
  return best?.text;
}

/** A failed CUDA call: "Program hit cudaErrorX (error N) due to "text" on CUDA API call to f." */
export function apiError(e: ApiErrorReport, frames: readonly HostFrame[]): string[] {
  return [
    `Program hit ${e.name} (error ${e.code}) due to "${e.text}" on CUDA API call to ${e.api || 'an unnamed CUDA function'}.`,
    ...hostFrameLines(frames, 'error'),
  ];
}

/** `--leak-check full`: an allocation still live when the context went. */
export function leakError(address: bigint, size: number, frames: readonly HostFrame[]): string[] {
  return [`Leaked ${bytes(size)} bytes at 0x${address.toString(16)}`, ...hostFrameLines(frames, 'allocation time')];
}

const accessWord = (a: AccessReport): string => (a.op === 'write' ? 'Write' : a.op === 'read' ? 'Read' : 'Atomic');
const accessAt = (a: AccessReport): string => at(a.function, a.pc, a.path ?? a.file, a.line);

/**
 * racecheck's severity: a race between lanes of one warp is a WARNING (warp-level programming,
 * which pre-Volta lock-step made work); any other an ERROR.
 */
export const raceLevel = (r: RaceEntry): 'error' | 'warn' => (r.intraWarp ? 'warn' : 'error');

/** Bytes one access moves, from its PTX (`ld.shared.v2.u32` 8); 1 when the text does not say. */
function accessBytes(ptx: string): number {
  const m = /\.(?:v(\d)\.)?[a-z]*?(\d+)(?=[\s.])/.exec(ptx.replace(/\.(?:shared|global|local|volatile|relaxed|acquire|release|cta|gpu|sys|weak|ca|cg|cs|lu|cv|wb|wt|nc)\b/g, ''));
  return m ? Math.max(1, (Number(m[2]) / 8) * Number(m[1] ?? 1)) : 1;
}

/** racecheck's analysis record ("Race reported between ... and ... [N hazards]"). */
export function racecheckAnalysis(r: RaceEntry): string[] {
  const [a, b] = r.accesses;
  // hazards are counted per byte, as racecheck counts them (the bytes both accesses touch)
  const hazards = r.count * Math.min(accessBytes(a.ptx), accessBytes(b.ptx));
  return [
    `${raceLevel(r) === 'warn' ? 'Warning' : 'Error'}: Race reported between ${accessWord(a)} access at ${accessAt(a)}`,
    `    and ${accessWord(b)} access at ${accessAt(b)} [${bytes(hazards)} hazard${hazards === 1 ? '' : 's'}]`,
  ];
}

/** racecheck's hazard record ("Potential RAW hazard detected at __shared__ 0x8c in block (0,0,0) :"). */
export function racecheckHazard(r: RaceEntry): string[] {
  const [a, b] = r.accesses;
  const space = r.space === 'shared' ? '__shared__' : '__global__';
  const level = raceLevel(r) === 'warn' ? 'Warning: (Warp Level Programming)' : 'Error:';
  return [
    `${level} Potential ${r.kind} hazard detected at ${space} 0x${r.address.toString(16)} in block ${coords(b.block)} :`,
    `    ${accessWord(a)} Thread ${coords(a.thread)} at ${accessAt(a)}`,
    `    ${accessWord(b)} Thread ${coords(b.thread)} at ${accessAt(b)}`,
  ];
}

/** A synccheck error: a barrier not reached by every thread that should. */
export function synccheckError(e: BarrierError): string[] {
  return [
    `Barrier error detected. ${e.kind === 'divergence' ? 'Divergent thread(s) in block.' : e.message}`,
    `    at ${at(e.function, e.pc, e.file, e.line)}`,
    `    in block ${coords(e.block)}`,
    ...(e.kind === 'divergence' ? [`    ${e.message}`] : []),
  ];
}

/** An initcheck record (compute-sanitizer's "Uninitialized __global__ memory read"). */
export function initcheckError(f: InitFinding): string[] {
  const space = f.space === 'global' ? '__global__' : f.space === 'shared' ? '__shared__' : '__local__';
  return [
    `Uninitialized ${space} memory read of size ${f.size} bytes`,
    `    at ${at(f.function, f.pc, f.file, f.line)}`,
    `    by thread ${coords(f.thread)} in block ${coords(f.block)}`,
    `    Address 0x${(f.space === 'global' ? WINDOW_BASE + BigInt(f.address) : BigInt(f.address)).toString(16)}`,
  ];
}
