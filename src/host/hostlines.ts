/**
 * Host call sites: an address in a host x86-64 ELF executable or shared object → `{ file, line,
 * function }`, from the file's own DWARF line table (`.debug_line`, read by dwarf/) and its symbol
 * table (demangled), falling back to the symbol name, then the bare address. What addr2line -f -C
 * answers, for `sanitize`'s `Host Frame:` lines and the whole-program timeline's host events
 * (`app.cu:42 in main`). Each file is read once (cached by path); a file that cannot be read or
 * parsed answers with the address alone, never an exception.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Dwarf, lineTableOf, sectionFromBytes, Warnings, type LineTable, type SectionData } from '../../dwarf/src/index.js';
import { displayName } from './demangle.js';
import { elfFunctions, elfSections, type ElfFunction } from './elf.js';

export interface HostLocation {
  /** The address looked up, in the file's own virtual addresses (after the load bias). */
  readonly address: bigint;
  /** Source path as the line table records it (absolute when the compiler gave a directory). */
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** Demangled function name (`run_unaligned()`, `main`) from the symbol table. */
  readonly function: string | undefined;
}

interface HostFile {
  readonly base: number;
  readonly functions: readonly ElfFunction[];
  readonly lines: LineTable | undefined;
}

/** The `.debug_*` sections of an ELF file (a linked file: relocations are already applied). */
function debugSections(bytes: Uint8Array): Map<string, SectionData> {
  const out = new Map<string, SectionData>();
  for (const s of elfSections(bytes)) {
    // SHF_COMPRESSED sections (flag not read here) start with an Elf64_Chdr; gcc/nvcc do not compress by default
    if (s.name.startsWith('.debug_') && s.size > 0) out.set(s.name, sectionFromBytes(s.name, bytes.subarray(s.offset, s.offset + s.size)));
  }
  return out;
}

function functionAt(functions: readonly ElfFunction[], at: number): ElfFunction | undefined {
  let lo = 0, hi = functions.length - 1, best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (functions[mid]!.value <= at) { best = mid; lo = mid + 1; } else hi = mid - 1;
  }
  const f = best >= 0 ? functions[best]! : undefined;
  return f && (f.size === 0 || at < f.value + f.size) ? f : undefined;
}

export class HostLines {
  private readonly files = new Map<string, HostFile | undefined>();
  /** Decoding problems per file (a bad line program header, ...), for a verbose mode or a test. */
  readonly warnings = new Map<string, readonly string[]>();

  private file(path: string): HostFile | undefined {
    if (!this.files.has(path)) {
      let f: HostFile | undefined;
      try {
        const bytes = readFileSync(path);
        const { base, functions } = elfFunctions(bytes);
        const sections = debugSections(bytes);
        const warnings = new Warnings();
        const lines = sections.has('.debug_line') ? lineTableOf(new Dwarf(sections, undefined, warnings)) : undefined;
        if (warnings.list.length) this.warnings.set(path, warnings.list);
        f = { base, functions, lines };
      } catch {
        f = undefined; // not readable, not ELF: the address alone
      }
      this.files.set(path, f);
    }
    return this.files.get(path);
  }

  /**
   * Where `address` is: `address` in the file's own virtual addresses (a runtime address minus
   * the load bias from /proc/PID/maps; for a non-PIE executable the bias is 0).
   */
  at(path: string, address: bigint): HostLocation {
    const f = this.file(path);
    if (!f) return { address, file: undefined, line: undefined, function: undefined };
    const fn = functionAt(f.functions, Number(address));
    const loc = f.lines?.find(address);
    return { address, file: loc?.file, line: loc?.line, function: fn ? displayName(fn.name) : undefined };
  }

  /**
   * The call site of a return address the runtime reported: the call instruction ends at the
   * return address, so the byte before it is looked up (as gdb and addr2line do for callers).
   * `loadBias`: where the file was mapped minus its own addresses (0 for a non-PIE executable).
   */
  callSite(path: string, returnAddress: bigint, loadBias = 0n): HostLocation {
    const at = returnAddress - loadBias - 1n;
    const loc = this.at(path, at);
    return { ...loc, address: returnAddress - loadBias };
  }

  /**
   * The same for an offset from the file's lowest loaded page (src/cudart/backtrace.c reports
   * frames that way: dladdr's base): the file's address is its first PT_LOAD page plus the offset.
   */
  callSiteAtOffset(path: string, returnOffset: bigint): HostLocation {
    const base = BigInt(this.file(path)?.base ?? 0);
    return this.callSite(path, returnOffset + base, 0n);
  }
}

/** `app.cu:42 in main`, `in main`, or `0x401136` (the timeline's host call site). */
export function formatHostLocation(l: HostLocation): string {
  const where = l.file !== undefined && l.line !== undefined ? `${basename(l.file)}:${l.line}` : undefined;
  if (where && l.function) return `${where} in ${l.function}`;
  if (where) return where;
  if (l.function) return `in ${l.function}`;
  return `0x${l.address.toString(16)}`;
}
