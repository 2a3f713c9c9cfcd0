/** Test helper: build small DWARF sections by hand. */
import { Dwarf } from '../src/index.js';
import { sectionFromBytes, type SectionData } from '../src/index.js';

export function uleb(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

export function sleb(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && !(b & 0x40)) || (v === -1n && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export interface AbbrevDecl {
  readonly code: number;
  readonly tag: number;
  readonly children: boolean;
  readonly attrs: readonly (readonly [number, number])[];
}

export function abbrevBytes(decls: readonly AbbrevDecl[]): number[] {
  const out: number[] = [];
  for (const d of decls) {
    out.push(...uleb(d.code), ...uleb(d.tag), d.children ? 1 : 0);
    for (const [a, f] of d.attrs) out.push(...uleb(a), ...uleb(f));
    out.push(0, 0);
  }
  out.push(0);
  return out;
}

/** Bytes of one DWARF 2 unit (32-bit format, address size 8). DIE offsets are `11 + index`. */
export class InfoBuilder {
  readonly body: number[] = [];
  /** Unit offset of the next byte. */
  get offset(): number {
    return 11 + this.body.length;
  }
  push(...b: number[]): this {
    this.body.push(...b);
    return this;
  }
  u16(v: number): this {
    return this.push(v & 0xff, (v >> 8) & 0xff);
  }
  u32(v: number): this {
    return this.push(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff);
  }
  str(s: string): this {
    return this.push(...Array.from(Buffer.from(s, 'utf8')), 0);
  }
  /** Placeholder u32 to patch later with `patch(at, value)`. */
  ref4(): number {
    const at = this.body.length;
    this.u32(0);
    return at;
  }
  patch(at: number, v: number): void {
    this.body[at] = v & 0xff;
    this.body[at + 1] = (v >> 8) & 0xff;
    this.body[at + 2] = (v >> 16) & 0xff;
    this.body[at + 3] = (v >>> 24) & 0xff;
  }
  unit(version = 2): number[] {
    const len = 7 + this.body.length;
    return [len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, len >>> 24, version, 0, 0, 0, 0, 0, 8, ...this.body];
  }
}

export function dwarfFrom(sections: Record<string, readonly number[]>): Dwarf {
  const m = new Map<string, SectionData>();
  for (const [k, v] of Object.entries(sections)) m.set(k, sectionFromBytes(k, v));
  return new Dwarf(m, undefined);
}
