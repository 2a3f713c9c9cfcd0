/**
 * A digest of the complete machine state (memory of every space, registers, SIMT stacks, frames,
 * barrier and scheduler state, output). Tests compare digests to prove that a restored position
 * equals the forward-executed one.
 */
import type { Machine } from '../exec/machine.js';

class Fnv {
  h1 = 0x811c9dc5;
  h2 = 0x01000193;
  bytes(u8: Uint8Array): void {
    let a = this.h1, b = this.h2;
    for (let i = 0; i < u8.length; i++) {
      a = Math.imul(a ^ u8[i]!, 0x01000193);
      b = Math.imul(b ^ u8[i]!, 0x5bd1e995) ^ (b >>> 15);
    }
    this.h1 = a; this.h2 = b;
  }
  num(n: number): void {
    this.h1 = Math.imul(this.h1 ^ (n | 0), 0x01000193);
    this.h2 = Math.imul(this.h2 ^ (n | 0), 0x5bd1e995) ^ (this.h2 >>> 15);
  }
  text(s: string): void {
    for (let i = 0; i < s.length; i++) this.num(s.charCodeAt(i));
  }
  hex(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }
}

export function stateHash(m: Machine): string {
  const h = new Fnv();
  h.num(m.warpSteps);
  h.num(m.threadInstructions);
  h.text(m.stdout);
  h.num(m.rng);
  h.num(m.nextCta);
  h.num(m.roundPos);
  h.num(m.quantumLeft);
  h.bytes(m.arena.bank.u8);
  for (const c of m.resident) {
    h.num(c.id);
    h.bytes(c.shared.u8);
    for (const a of [c.barArrived, c.barExpected, c.barPopc, c.barAnd, c.barOr]) for (const x of a) h.num(x);
    h.num(c.liveThreads);
    for (const w of c.warps) {
      h.num(w.pc); h.num(w.mask); h.num(w.exited); h.num(w.state); h.num(w.barrierId); h.num(w.sp); h.num(w.issued);
      h.bytes(w.carry);
      h.bytes(w.local.u8);
      for (const f of w.frames) {
        h.text(f.fn.name);
        h.bytes(new Uint8Array(f.i32.buffer));
        h.num(f.depth); h.num(f.returned); h.num(f.localBase); h.num(f.callPc);
        for (let i = 0; i < f.depth; i++) { h.num(f.spc[i]!); h.num(f.srpc[i]!); h.num(f.smask[i]!); }
      }
    }
  }
  for (const w of m.round) h.num(w.id);
  h.num(m.cur ? m.cur.id : -1);
  return h.hex();
}
