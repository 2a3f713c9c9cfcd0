/**
 * Trace files (`ptxdbg record -o run.ptxtrace`, `ptxdbg replay run.ptxtrace`).
 *
 * Layout, little-endian:
 *   "PTXDBGTR" | u32 version | u32 header length | header JSON | sections | sha256(all before)
 * The header names each section's byte length; sections are the PTX text, the launch (JSON with
 * buffer contents in base64), the step log (2 x u32 per logged step), segment starts and warps
 * (u32 each) and the printf output. The file is self-contained: replay re-executes the embedded
 * PTX and launch and checks that the re-recorded log equals the stored one, so a file that does
 * not describe this build's execution is rejected instead of showing a wrong state.
 * Writes go to a temporary file renamed into place.
 */
import { createHash } from 'node:crypto';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { readBounded, ReadError } from '../io/bounded.js';
import type { Launch, LaunchArg, RefBinding } from '../exec/launch.js';
import { parseFormat, type Sampler } from '../exec/texture/image.js';
import type { ImageSpec } from '../exec/texture/spec.js';
import type { Trace } from './trace.js';
import { CHUNK_STEPS } from './steplog.js';

const MAGIC = 'PTXDBGTR';
// 2: instructions are numbered over the functions the kernel reaches (lazily resolved modules), not every function
export const TRACE_VERSION = 2;

export class TraceFileError extends Error {
  /** `unreadable`: the file could not be read at all (missing, a directory); else it is not a valid trace. */
  constructor(message: string, readonly kind: 'unreadable' | 'invalid' = 'invalid') {
    super(message);
  }
}

interface Header {
  ptxPath: string;
  ptxSha256: string;
  launchSha256: string;
  schedule: 'rr' | 'random';
  seed: number;
  maxSteps: number;
  interval: number;
  total: number;
  logged: number;
  nseg: number;
  faultStep: number;
  sections: { ptx: number; launch: number; log: number; segStep: number; segWarp: number; stdout: number };
}

export interface TraceFile {
  header: Header;
  ptxText: string;
  launch: Launch;
  log: Uint32Array;
  segStep: Uint32Array;
  segWarp: Uint32Array;
  stdout: string;
}

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

function b64(u: Uint8Array | undefined): string | null {
  return u ? Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64') : null;
}

export function launchToJson(l: Launch): string {
  return JSON.stringify({
    kernel: l.kernel, grid: l.grid, block: l.block, sharedBytes: l.sharedBytes,
    args: l.args.map((a) => {
      if (a.kind === 'buffer') return { kind: a.kind, name: a.name, type: a.type, count: a.count, init: b64(a.init) };
      if (a.kind === 'bytes') return { kind: a.kind, name: a.name, bytes: b64(a.bytes) };
      if (a.kind === 'image') return { kind: a.kind, name: a.name, image: imageJson(a.image) };
      return { kind: a.kind, name: a.name, type: a.type, value: typeof a.value === 'bigint' ? { big: a.value.toString() } : a.value };
    }),
    refs: (l.refs ?? []).map((r) => ('image' in r ? { name: r.name, image: imageJson(r.image) } : r)),
  });
}

function imageJson(im: ImageSpec): Record<string, unknown> {
  return { ...im, format: im.format.name, init: b64(im.init) };
}

function imageFromJson(o: Record<string, unknown>): ImageSpec {
  const format = parseFormat(String(o['format']));
  if (!format) throw new TraceFileError(`the recorded launch has an image of unknown format ${String(o['format'])}`);
  const init = typeof o['init'] === 'string' ? new Uint8Array(Buffer.from(o['init'], 'base64')) : undefined;
  return { ...(o as unknown as ImageSpec), format, init };
}

function launchFromJson(text: string): Launch {
  const o = JSON.parse(text) as {
    kernel: string; grid: [number, number, number]; block: [number, number, number]; sharedBytes: number;
    args: { kind: string; name: string; type?: string; count?: number; init?: string | null; bytes?: string | null; value?: number | { big: string }; image?: Record<string, unknown> }[];
    refs?: ({ name: string; image: Record<string, unknown> } | { name: string; sampler: Sampler })[];
  };
  const buf = (s: string | null | undefined): Uint8Array | undefined => (s ? new Uint8Array(Buffer.from(s, 'base64')) : undefined);
  const args: LaunchArg[] = o.args.map((a): LaunchArg => {
    if (a.kind === 'buffer') return { kind: 'buffer', name: a.name, type: a.type as never, count: a.count ?? 0, init: buf(a.init), file: undefined };
    if (a.kind === 'bytes') return { kind: 'bytes', name: a.name, bytes: buf(a.bytes) ?? new Uint8Array(0) };
    if (a.kind === 'image' && a.image) return { kind: 'image', name: a.name, image: imageFromJson(a.image) };
    const v = a.value;
    return { kind: 'scalar', name: a.name, type: a.type as never, value: typeof v === 'object' && v !== null ? BigInt(v.big) : (v ?? 0) };
  });
  const refs: RefBinding[] = (o.refs ?? []).map((r) => ('image' in r ? { name: r.name, image: imageFromJson(r.image) } : r));
  return { kernel: o.kernel, grid: o.grid, block: o.block, sharedBytes: o.sharedBytes, args, ...(refs.length ? { refs } : {}) };
}

/** Serialise a recorded trace with what is needed to re-create it. */
export function writeTraceFile(path: string, t: Trace, ptxPath: string, ptxText: string, launch: Launch, opts: { schedule: 'rr' | 'random'; seed: number; maxSteps: number }): number {
  const enc = new TextEncoder();
  const ptx = enc.encode(ptxText);
  const launchText = launchToJson(launch);
  const launchBytes = enc.encode(launchText);
  const logged = t.logged;
  const log = new Uint32Array(logged * 2);
  const cs = CHUNK_STEPS;
  for (let s = 0, c = 0; s < logged; s += cs, c++) log.set(t.log.chunk(c).subarray(0, Math.min(cs, logged - s) * 2), s * 2);
  const segStep = t.log.segStep.slice(0, t.log.nseg);
  const segWarp = t.log.segWarp.slice(0, t.log.nseg);
  const stdout = enc.encode(t.stdout);
  const header: Header = {
    ptxPath, ptxSha256: sha(ptx), launchSha256: sha(launchBytes), schedule: opts.schedule, seed: opts.seed, maxSteps: opts.maxSteps,
    interval: t.interval, total: t.total, logged, nseg: t.log.nseg, faultStep: t.faultStep,
    sections: { ptx: ptx.byteLength, launch: launchBytes.byteLength, log: log.byteLength, segStep: segStep.byteLength, segWarp: segWarp.byteLength, stdout: stdout.byteLength },
  };
  const hjson = enc.encode(JSON.stringify(header));
  const head = new Uint8Array(16);
  head.set(enc.encode(MAGIC), 0);
  const dv = new DataView(head.buffer);
  dv.setUint32(8, TRACE_VERSION, true);
  dv.setUint32(12, hjson.byteLength, true);
  const parts = [head, hjson, ptx, launchBytes, new Uint8Array(log.buffer), new Uint8Array(segStep.buffer), new Uint8Array(segWarp.buffer), stdout];
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  parts.push(new Uint8Array(h.digest()));
  const body = Buffer.concat(parts);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, body);
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* nothing to clean */ }
    throw new TraceFileError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return body.byteLength;
}

/** Node's largest Buffer; a trace file is read whole. */
const MAX_TRACE_BYTES = 2 ** 31 - 1;

export function readTraceFile(path: string): TraceFile {
  let bytes: Buffer;
  try {
    bytes = readBounded(path, MAX_TRACE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new TraceFileError(e.message, 'unreadable');
    throw e;
  }
  const bad = (why: string): TraceFileError => new TraceFileError(`${path}: not a usable ptxdbg trace: ${why}`);
  if (bytes.byteLength < 16 + 32) throw bad(`file is too short (${bytes.byteLength} bytes; truncated?)`);
  if (bytes.subarray(0, 8).toString('latin1') !== MAGIC) throw bad('wrong magic number (not a .ptxtrace file)');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (version !== TRACE_VERSION) throw bad(`format version ${version}, this ptxdbg reads version ${TRACE_VERSION}`);
  const body = bytes.subarray(0, bytes.byteLength - 32);
  const digest = createHash('sha256').update(body).digest();
  if (!digest.equals(bytes.subarray(bytes.byteLength - 32))) throw bad('checksum mismatch (the file is truncated or corrupted)');
  const hlen = dv.getUint32(12, true);
  if (16 + hlen > body.byteLength) throw bad('header length exceeds the file');
  let header: Header;
  try {
    header = JSON.parse(body.subarray(16, 16 + hlen).toString('utf8')) as Header;
  } catch {
    throw bad('header is not valid JSON');
  }
  const sec = header.sections;
  if (!sec || typeof sec.ptx !== 'number') throw bad('header lacks section sizes');
  const int = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= -1;
  if (!Number.isInteger(header.interval) || header.interval < 1 || header.interval > 1 << 19 || (header.interval & (header.interval - 1)) !== 0) throw bad(`bad checkpoint interval ${String(header.interval)}`);
  if (header.schedule !== 'rr' && header.schedule !== 'random') throw bad(`bad schedule ${String(header.schedule)}`);
  if (![header.seed, header.maxSteps, header.total, header.logged, header.nseg, header.faultStep].every(int) || typeof header.ptxPath !== 'string') throw bad('header fields are not valid');
  let off = 16 + hlen;
  const take = (n: number, what: string): Buffer => {
    if (!Number.isInteger(n) || n < 0 || off + n > body.byteLength) throw bad(`section ${what} runs past the end of the file`);
    const b = body.subarray(off, off + n);
    off += n;
    return b;
  };
  const ptxB = take(sec.ptx, 'ptx');
  const launchB = take(sec.launch, 'launch');
  const words = (b: Buffer): Uint32Array => {
    const copy = new Uint8Array(b);
    return new Uint32Array(copy.buffer, 0, copy.byteLength >>> 2);
  };
  const log = words(take(sec.log, 'log'));
  const segStep = words(take(sec.segStep, 'segments'));
  const segWarp = words(take(sec.segWarp, 'segments'));
  const stdout = take(sec.stdout, 'stdout').toString('utf8');
  if (off !== body.byteLength) throw bad('trailing bytes after the last section');
  if (sha(ptxB) !== header.ptxSha256) throw bad('embedded PTX does not match its hash');
  if (sha(launchB) !== header.launchSha256) throw bad('embedded launch does not match its hash');
  let launch: Launch;
  try {
    launch = launchFromJson(launchB.toString('utf8'));
  } catch (e) {
    throw bad(`launch section: ${(e as Error).message}`);
  }
  if (log.length !== header.logged * 2 || segStep.length !== header.nseg || segWarp.length !== header.nseg) throw bad('section sizes disagree with the header');
  return { header, ptxText: ptxB.toString('utf8'), launch, log, segStep, segWarp, stdout };
}

/** Does a freshly recorded trace reproduce the file exactly? Returns the first difference. */
export function compareWithFile(t: Trace, f: TraceFile): string | undefined {
  if (t.total !== f.header.total) return `the run now takes ${t.total} warp-steps, the file recorded ${f.header.total}`;
  if (t.logged !== f.header.logged) return `logged steps differ (${t.logged} vs ${f.header.logged})`;
  if (t.log.nseg !== f.header.nseg) return `warp scheduling differs (${t.log.nseg} vs ${f.header.nseg} segments)`;
  for (let i = 0; i < t.log.nseg; i++) {
    if (t.log.segStep[i] !== f.segStep[i] || t.log.segWarp[i] !== f.segWarp[i]) return `warp scheduling differs at segment ${i}`;
  }
  for (let s = 0; s < t.logged; s++) {
    if (t.log.loc(s) !== f.log[2 * s] || t.log.mask(s) !== (f.log[2 * s + 1]! | 0)) return `execution differs at step ${s}`;
  }
  if (t.stdout !== f.stdout) return 'printf output differs';
  return undefined;
}
