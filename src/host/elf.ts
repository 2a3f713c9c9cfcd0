/**
 * Just enough ELF64 (little-endian) to find a section of a host executable or shared library by
 * name: where nvcc puts the device code (`.nv_fatbin`). Malformed files are an ElfError, located.
 */
export class ElfError extends Error {}

export interface ElfSection {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
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
    raw.push({ name: dv.getUint32(o, true), type: dv.getUint32(o + 4, true), offset: Number(dv.getBigUint64(o + 24, true)), size: Number(dv.getBigUint64(o + 32, true)) });
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
    return { name: nameAt(s.name), offset: s.offset, size };
  });
}
