/**
 * compute-sanitizer's report layout for `ptxdbg sanitize`: every line prefixed "========= ", a
 * memcheck error per faulting access, a racecheck hazard per race, and the error summary.
 */
import type { FaultReport } from '../exec/machine.js';
import type { RaceEntry, BarrierError } from '../races/types.js';
import type { Device } from './device.js';
import { WINDOW_BASE } from './device.js';
import { plainName } from '../engine/breakpoints.js';
import type { InitFinding } from './initcheck.js';

export const PREFIX = '========= ';

const where = (fn: string, pc: number, file: string | undefined | null, line: number): string =>
  `at ${plainName(fn)}+PTX ${pc}${file ? ` in ${file}:${line}` : ''}`;

/** A memcheck error for a kernel fault, or undefined for faults memcheck does not report. */
export function memcheckError(f: FaultReport, device: Device): string[] | undefined {
  const lines: string[] = [];
  const thread = f.thread ? `by thread (${f.thread.join(',')}) in block (${f.block!.join(',')})` : '';
  const m = /(read|write) of (\d+) bytes/.exec(f.message);
  if (f.kind === 'oob' || f.kind === 'invalid' || f.kind === 'misaligned' || f.kind === 'readonly') {
    const space = f.space === 'global' ? '__global__' : f.space === 'shared' ? '__shared__' : f.space === 'local' ? '__local__' : f.space ?? 'generic';
    const what = f.kind === 'misaligned' ? 'Misaligned' : 'Invalid';
    lines.push(`${what} ${space} ${m?.[1] ?? 'access'} of size ${m?.[2] ?? '?'} bytes`);
    lines.push(`    ${where(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
    if (f.address !== undefined) {
      lines.push(`    Address 0x${f.address.toString(16)} ${f.kind === 'misaligned' ? 'is misaligned' : 'is out of bounds'}`);
      const near = f.space === 'global' ? nearest(device, f.address) : undefined;
      if (near) lines.push(`    and is ${near}`);
    }
  } else if (f.kind === 'assert' || f.kind === 'trap' || f.kind === 'brkpt') {
    lines.push(f.kind === 'assert' ? 'Assertion failed' : 'Device-side trap');
    lines.push(`    ${where(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
    lines.push(`    ${f.message}`);
  } else if (f.kind === 'heap') {
    lines.push(`Malloc/Free error: ${f.message}`);
    lines.push(`    ${where(f.function, f.pc, f.file, f.line)}`);
    if (thread) lines.push(`    ${thread}`);
  } else return undefined;
  for (const c of f.callers) lines.push(`    Device Frame: ${c.function}${c.file ? ` in ${c.file}:${c.line}` : ''}`);
  return lines;
}

function nearest(device: Device, address: bigint): string | undefined {
  const off = address - WINDOW_BASE;
  if (off < 0n || off > BigInt(device.arena.bank.size)) return undefined;
  let best: { dist: bigint; text: string } | undefined;
  for (const a of device.arena.allocs) {
    if (a.freed) continue;
    const lo = BigInt(a.base), hi = BigInt(a.base + a.size);
    const dist = off >= hi ? off - hi : off < lo ? lo - off : -1n;
    if (dist < 0n) continue;
    const text = off >= hi
      ? `${dist} bytes after the nearest allocation at 0x${(WINDOW_BASE + lo).toString(16)} of size ${a.size} bytes`
      : `${dist} bytes before the nearest allocation at 0x${(WINDOW_BASE + lo).toString(16)} of size ${a.size} bytes`;
    if (!best || dist < best.dist) best = { dist, text };
  }
  return best?.text;
}

/** A racecheck hazard (compute-sanitizer's "Race reported between ... and ..."). */
export function racecheckError(r: RaceEntry): string[] {
  const [a, b] = r.accesses;
  const op = (x: typeof a): string => (x.op === 'write' ? 'Write' : x.op === 'read' ? 'Read' : 'Atomic');
  const space = r.space === 'shared' ? 'shared' : 'global';
  return [
    `Error: Race reported between ${op(a)} access at ${plainName(a.function)}+PTX ${a.pc}${a.file ? ` in ${a.file}:${a.line}` : ''}`,
    `    and ${op(b)} access at ${plainName(b.function)}+PTX ${b.pc}${b.file ? ` in ${b.file}:${b.line}` : ''} [${r.count} hazard${r.count === 1 ? '' : 's'}]`,
    `    on ${space} memory${r.variable ? ` ${r.variable}` : r.buffer ? ` ${r.buffer}` : ''} at 0x${r.address.toString(16)}, threads (${a.thread.join(',')}) in block (${a.block.join(',')}) and (${b.thread.join(',')}) in block (${b.block.join(',')})`,
  ];
}

/** A synccheck error: a barrier not reached by every thread that should. */
export function synccheckError(e: BarrierError): string[] {
  return [
    `Barrier error detected. ${e.message}`,
    `    at ${plainName(e.function)}+PTX ${e.pc}${e.file ? ` in ${e.file}:${e.line}` : ''}`,
    `    in block (${e.block.join(',')})`,
  ];
}

/** An initcheck finding (compute-sanitizer's "Uninitialized __global__ memory read"). */
export function initcheckError(f: InitFinding): string[] {
  const space = f.space === 'global' ? '__global__' : f.space === 'shared' ? '__shared__' : '__local__';
  return [
    `Uninitialized ${space} memory read of size ${f.size} bytes`,
    `    ${where(f.function, f.pc, f.file, f.line)}`,
    `    by thread (${f.thread.join(',')}) in block (${f.block.join(',')})${f.count > 1 ? ` [${f.count} reads by this instruction]` : ''}`,
    `    Address 0x${(f.space === 'global' ? WINDOW_BASE + BigInt(f.address) : BigInt(f.address)).toString(16)}${f.space === 'global' ? '' : ` (${f.space} offset)`}`,
  ];
}
