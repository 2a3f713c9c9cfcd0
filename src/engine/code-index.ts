/**
 * Per-instruction tables over the whole program, indexed by the trace's global instruction index
 * (Machine.globalBase + pc): function, pc, source line and file, line starts, and the kind of
 * control transfer. Navigation reads these instead of the AST so a scan over millions of logged
 * steps is a few typed-array loads per step.
 */
import { Ctl } from '../exec/compiled.js';
import type { Machine } from '../exec/machine.js';
import type { ProgFunction } from '../ptx/resolve.js';

export const enum Kind {
  Plain = 0,
  /** call (direct to a body, indirect, or a system call). */
  Call = 1,
  Ret = 2,
  Exit = 3,
}

export class CodeIndex {
  readonly fnIndex: Uint16Array;
  readonly pc: Uint32Array;
  readonly line: Int32Array;
  readonly file: Int32Array;
  readonly kind: Uint8Array;
  /** 1 where the instruction begins a run of its line (its predecessor has another line). */
  readonly lineStart: Uint8Array;
  readonly functions: ProgFunction[] = [];
  /** Per function: does it have a source line besides its declaration line (prologue skip)? */
  readonly hasBodyLine: boolean[] = [];
  readonly bases: number[] = [];

  constructor(readonly machine: Machine) {
    const n = machine.instructionCount;
    this.fnIndex = new Uint16Array(n);
    this.pc = new Uint32Array(n);
    this.line = new Int32Array(n);
    this.file = new Int32Array(n).fill(-1);
    this.kind = new Uint8Array(n);
    this.lineStart = new Uint8Array(n);
    for (const prog of machine.functions) {
      const name = prog.name;
      const base = machine.globalBase.get(name)!;
      const fi = this.functions.length;
      this.functions.push(prog);
      this.bases.push(base);
      const cf = machine.fn(name);
      const entry = prog.locLine[0] ?? 0;
      this.hasBodyLine.push(prog.instrs.some((_, i) => { const l = prog.locLine[i] ?? 0; return l !== 0 && l !== entry; }));
      for (let pc = 0; pc < prog.instrs.length; pc++) {
        const g = base + pc;
        this.fnIndex[g] = fi;
        this.pc[g] = pc;
        this.line[g] = prog.locLine[pc] ?? 0;
        this.file[g] = prog.locFile[pc] ?? -1;
        const ctl = cf?.code[pc]?.ctl ?? Ctl.None;
        this.kind[g] = ctl === Ctl.Call ? Kind.Call : ctl === Ctl.Ret ? Kind.Ret : ctl === Ctl.Exit ? Kind.Exit : Kind.Plain;
        const line = this.line[g]!;
        this.lineStart[g] = line > 0 && (pc === 0 || (prog.locLine[pc - 1] ?? 0) !== line || (prog.locFile[pc - 1] ?? -1) !== this.file[g]) ? 1 : 0;
      }
    }
  }

  global(fn: string, pc: number): number {
    const b = this.machine.globalBase.get(fn);
    return b === undefined ? -1 : b + pc;
  }

  fnName(g: number): string {
    return this.functions[this.fnIndex[g]!]!.name;
  }

  fileName(g: number): string | undefined {
    const f = this.file[g]!;
    return f >= 0 ? this.machine.program.files.get(f) : undefined;
  }
}
