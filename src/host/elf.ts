/**
 * Just enough ELF64 (little-endian) to find a section of a host executable or shared library by
 * name: where nvcc puts the device code (`.nv_fatbin`). Malformed files are an ElfError, located.
 */
export class ElfError extends Error {}

export interface ElfSection {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  /** sh_type (2 SHT_SYMTAB, 3 SHT_STRTAB, 11 SHT_DYNSYM) and sh_link (a symbol table's strings). */
  readonly type: number;
  readonly link: number;
}

export function elfSections(b: Uint8Array): ElfSection[] {
  if (b.length < 64 || b[0] !== 0x7f || b[1] !== 0x45 || b[2] !== 0x4c || b[3] !== 0x46) throw new ElfError('not an ELF file');
  if (b[4] !== 2 || b[5] !== 1) throw new ElfError('not a 64-bit little-endian ELF file');
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shentsize = dv.getUint16(0x3a, true);
  const shnum = dv.getUint16(0x3c, true);
  const shstrndx = dv.getUint16(0x3e, true);
  if (shentsize < 64 || shoff + shnum * shentsize > b.length) throw new ElfError(`section headers at 0x${shoff.toString(16)} run past the end of the file`);
  const raw = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    raw.push({ name: dv.getUint32(o, true), type: dv.getUint32(o + 4, true), offset: Number(dv.getBigUint64(o + 24, true)), size: Number(dv.getBigUint64(o + 32, true)), link: dv.getUint32(o + 40, true) });
  }
  const strtab = raw[shstrndx];
  if (!strtab || strtab.offset + strtab.size > b.length) throw new ElfError('no section name table');
  const nameAt = (off: number): string => {
    let end = strtab.offset + off;
    while (end < strtab.offset + strtab.size && b[end] !== 0) end++;
    return new TextDecoder().decode(b.subarray(strtab.offset + off, end));
  };
  return raw.map((s) => {
    // SHT_NOBITS (8) occupies no file bytes
    const size = s.type === 8 ? 0 : s.size;
    if (s.offset + size > b.length) throw new ElfError(`section ${nameAt(s.name)} runs past the end of the file`);
    return { name: nameAt(s.name), offset: s.offset, size, type: s.type, link: s.link };
  });
}

export interface ElfFunction { readonly name: string; readonly value: number; readonly size: number }

/**
 * The function symbols of an ELF file (.symtab, else .dynsym), sorted by address, and the
 * lowest PT_LOAD address: an address `off` bytes past where the file is loaded is `base + off`.
 */
export function elfFunctions(b: Uint8Array): { base: number; functions: ElfFunction[] } {
  const sections = elfSections(b);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const phoff = Number(dv.getBigUint64(0x20, true));
  const phentsize = dv.getUint16(0x36, true);
  const phnum = dv.getUint16(0x38, true);
  let base = Infinity;
  for (let i = 0; i < phnum && phoff + (i + 1) * phentsize <= b.length; i++) {
    const o = phoff + i * phentsize;
    if (dv.getUint32(o, true) === 1) base = Math.min(base, Number(dv.getBigUint64(o + 16, true)));
  }
  const table = sections.find((s) => s.type === 2) ?? sections.find((s) => s.type === 11);
  const strings = table ? sections[table.link] : undefined;
  const functions: ElfFunction[] = [];
  if (table && strings) {
    const text = new TextDecoder();
    for (let o = table.offset; o + 24 <= table.offset + table.size; o += 24) {
      // STT_FUNC with an address
      if ((b[o + 4]! & 0xf) !== 2) continue;
      const value = Number(dv.getBigUint64(o + 8, true));
      if (value === 0) continue;
      const at = strings.offset + dv.getUint32(o, true);
      let end = at;
      while (end < strings.offset + strings.size && b[end] !== 0) end++;
      functions.push({ name: text.decode(b.subarray(at, end)), value, size: Number(dv.getBigUint64(o + 16, true)) });
    }
  }
  functions.sort((x, y) => x.value - y.value);
  return { base: Number.isFinite(base) ? base & ~0xfff : 0, functions };
}
