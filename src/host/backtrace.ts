/**
 * Host backtraces of `ptxdbg sanitize`: the frames the runtime (src/cudart/backtrace.c) saw at a
 * launch or at a failed CUDA call, named from each file's own ELF symbols as compute-sanitizer
 * names them (`Host Frame: run_unaligned() [0xacd4] in memcheck_demo`). Names come from .symtab
 * (nvcc keeps it unless the program is stripped), else from the dynamic symbol the runtime
 * found. Where the file has a DWARF line table (built with -g), the frame names the call's source
 * line as compute-sanitizer does (`Host Frame: main in /src/app.cu:42 [0x1465] in app`, read by
 * hostlines.ts); without one it is `name [offset] in module`, its form for a program without -g.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { elfFunctions, type ElfFunction } from './elf.js';
import type { HostLines } from './hostlines.js';
import { displayName } from './demangle.js';
import type { Fields } from './protocol.js';

/** A frame as the runtime sends it: an offset from the load base of the file at `path`. */
export interface RawFrame { offset: bigint; path: string; symbol: string }

export interface HostFrame {
  /** The function's mangled name (undefined: no symbol covers the address). */
  symbol: string | undefined;
  offset: bigint;
  module: string;
  /** The call's source line, where the file has a line table for it. */
  file?: string;
  line?: number;
}

/** The frames at the end of a request (u32 count, then the frames); none when nothing follows. */
export function readFrames(f: Fields): RawFrame[] {
  if (f.remaining() < 4) return [];
  const n = f.u32();
  const out: RawFrame[] = [];
  for (let i = 0; i < n; i++) {
    const offset = f.u64();
    const pl = f.u32();
    const sl = f.u32();
    out.push({ offset, path: f.text(pl), symbol: f.text(sl) });
  }
  return out;
}

/** nvcc's generated launch code between the program's call and the runtime (not shown, as by compute-sanitizer). */
function launchGlue(symbol: string): boolean {
  const name = displayName(symbol);
  return name.startsWith('__device_stub__') || name.startsWith('__cudaLaunchKernel_helper(') || /(^|\s)cudaLaunch(Cooperative)?Kernel</.test(name);
}

/** Source lines of host frames (hostlines.ts, which reads DWARF). */
export type HostLineSource = Pick<HostLines, 'callSiteAtOffset'>;

export class Symbolizer {
  private readonly files = new Map<string, { base: number; functions: ElfFunction[] } | undefined>();

  /**
   * `lines`: where frames get their source lines; without it they have none. Frames come only
   * from `sanitize` and recording, which load hostlines.ts (and the DWARF reader behind it) for
   * them; a plain `exec` does without, and starts sooner for it.
   */
  constructor(private readonly lines?: HostLineSource) {}

  private symbols(path: string): { base: number; functions: ElfFunction[] } | undefined {
    if (!this.files.has(path)) {
      let s;
      try { s = elfFunctions(readFileSync(path)); } catch { s = undefined; }
      this.files.set(path, s);
    }
    return this.files.get(path);
  }

  /** The frame's return address in its file's own (link-time) addresses; undefined when the file cannot be read. */
  linkAddress(r: RawFrame): bigint | undefined {
    const s = this.symbols(r.path);
    return s ? BigInt(s.base) + r.offset : undefined;
  }

  frame(r: RawFrame): HostFrame {
    let symbol: string | undefined = r.symbol || undefined;
    const s = this.symbols(r.path);
    if (s && !symbol) {
      // the byte before the return address is inside the call instruction
      const at = s.base + Number(r.offset) - 1;
      let lo = 0, hi = s.functions.length - 1, best = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (s.functions[mid]!.value <= at) { best = mid; lo = mid + 1; } else hi = mid - 1;
      }
      const f = best >= 0 ? s.functions[best]! : undefined;
      if (f && (f.size === 0 || at < f.value + f.size)) symbol = f.name;
    }
    const frame: HostFrame = { symbol, offset: r.offset, module: basename(r.path) };
    if (s && this.lines) {
      const at = this.lines.callSiteAtOffset(r.path, r.offset);
      if (at.file !== undefined && at.line !== undefined) { frame.file = at.file; frame.line = at.line; }
    }
    return frame;
  }

  /**
   * compute-sanitizer's short backtrace: the program's frames from the call outward, without
   * the launch glue nvcc generates (`kernel` is the launched kernel, whose host stub has its
   * mangled name), ending at main.
   */
  backtrace(raw: readonly RawFrame[], kernel?: string): HostFrame[] {
    const out: HostFrame[] = [];
    for (const r of raw) {
      const f = this.frame(r);
      if (f.symbol && (launchGlue(f.symbol) || f.symbol === kernel)) continue;
      out.push(f);
      if (f.symbol === 'main') break;
    }
    return out;
  }
}

/** A Symbolizer that names source lines too (hostlines.ts and the DWARF reader behind it, loaded now). */
export async function lineSymbolizer(): Promise<Symbolizer> {
  const { HostLines } = await import('./hostlines.js');
  return new Symbolizer(new HostLines());
}

/** `Host Frame:` lines (without the prefix), indented as compute-sanitizer indents them. */
export function hostFrameLines(frames: readonly HostFrame[], when: string): string[] {
  if (frames.length === 0) return [];
  return [
    `    Saved host backtrace up to driver entry point at ${when}`,
    ...frames.map((f) => {
      const name = f.symbol ? `${displayName(f.symbol)} ` : '';
      const source = f.file !== undefined && f.line !== undefined ? `in ${f.file}:${f.line} ` : '';
      return `        Host Frame: ${name}${source}[0x${f.offset.toString(16)}] in ${f.module}`;
    }),
  ];
}
