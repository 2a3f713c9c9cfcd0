/**
 * What the interpreter cannot execute, found without running: every function goes through the
 * same instruction selection a launch uses, and each instruction it refuses becomes a located
 * diagnostic. `check` uses this so that it never passes a file the interpreter would stop on.
 */
import type { Diagnostic } from '../ptx/diagnostics.js';
import type { ProgFunction, Program, RInstruction, ROperand, VarInfo } from '../ptx/resolve.js';
import { compileFunction, FnCompiler, type Layout, selectInstr } from './compile.js';
import { Ctl } from './compiled.js';
import { selectOnly } from './compile/operands.js';

export function unsupportedInstructions(program: Program): Diagnostic[] {
  const check = supportCheck(program);
  const out: Diagnostic[] = [];
  for (const fn of program.functions.values()) check(fn, out);
  return out;
}

/** The check of one function at a time (`check` sweeps a module's functions without keeping them). */
export function supportCheck(program: Program): (fn: ProgFunction, out: Diagnostic[]) => void {
  const layout = selectionLayout(program);
  return (fn, out) => {
    // nothing here runs: lane loops are checked, not instantiated
    for (const c of selectOnly(() => compileFunction(fn, layout, false)).code) {
      if (c.ctl === Ctl.Unsupported) {
        out.push({ severity: 'error', message: `not supported by the interpreter: ${c.note || c.src.opcode}`, span: c.src.src.opSpan });
      }
    }
  };
}

/** The layout selection is checked under: every function a launch can take the address of has an id (bodies, then prototypes: the machine's ids); addresses do not change what can be selected, so any value will do. */
function selectionLayout(program: Program): Layout {
  const ids = new Map([...program.bodies.map((d) => d.name), ...program.prototypes.keys()].map((name, i) => [name, i] as const));
  return { addressOf: () => ({ lo: 0, hi: 0 }), functionAddress: (name) => ids.get(name) ?? -1, target: program.module.target, version: program.module.version };
}

/**
 * `check`'s verdict on one function at a time: how many of its instructions the interpreter cannot
 * run, without saying which (a module with any is reported through supportCheck). Whether an
 * instruction can be selected depends only on its key (SelectionKeys), so each kind
 * of instruction is selected once per module: a big module repeats a few thousand kinds hundreds
 * of thousands of times.
 */
export function supportVerdict(program: Program): (fn: ProgFunction) => number {
  const layout = selectionLayout(program);
  const keys = new SelectionKeys();
  return (fn) => selectOnly(() => {
    let fc: FnCompiler | undefined;
    let bad = 0;
    keys.forgetFunction();
    const instrs = fn.instrs;
    for (let i = 0; i < instrs.length; i++) {
      const ins = instrs[i]!;
      const kind = keys.of(ins);
      let ok = kind.supported;
      if (ok === undefined) {
        fc ??= new FnCompiler(fn, layout);
        ok = selectInstr(fc, ins, i, -1).ctl !== Ctl.Unsupported;
        kind.supported = ok;
      }
      if (!ok) bad++;
    }
    return bad;
  });
}

/** A node of SelectionKeys' trie: one kind of instruction where a key ends there, with what selection said of it. */
export class SelectionKind {
  readonly next = new Map<number, SelectionKind>();
  supported: boolean | undefined = undefined;
}

/** Where in a key what follows is told apart (the grammar of SelectionKeys.of: a key is read one way only). */
const enum Mark { Reg, RegPlus, Special, Int, Float, Var, VarIdx, Label, Func, Proto, Sink, Unresolved, Addr, NoBase, Vec, List, Not, Neg, Pair, Guard, NegGuard, NoGuard, Selectors, NoSelectors }

/**
 * Keys of instructions for selection: everything of an instruction that instruction selection
 * (exec/compile/**) reads, except what cannot make it refuse: register slots, label targets and
 * source spans and frame offsets. A register is its type; a variable its storage, space,
 * declaration type and shape, its name where it is the module's or the CTA's (textures and
 * samplers are bound by name), and its initializer fields. A key is a path of numbers in a trie,
 * each piece (an opcode, a type, a variable's description) numbered once per module, so finding an
 * instruction's kind builds no strings: the node it ends at (SelectionKind) is the kind.
 */
export class SelectionKeys {
  private readonly ids = new Map<string, number>();
  private readonly modsIds = new Map<readonly string[], number>();
  private readonly varIds = new Map<VarInfo, number>();
  private readonly intIds = new Map<bigint, number>();
  private readonly root = new SelectionKind();
  private at = this.root;

  /**
   * Lets go of what belongs to the last function (its variables and modifier lists are its own
   * objects), so that a sweep of a big module holds only the trie.
   */
  forgetFunction(): void {
    this.modsIds.clear();
    this.varIds.clear();
  }

  of(ins: RInstruction): SelectionKind {
    this.at = this.root;
    this.step(this.id(ins.opcode));
    let mods = this.modsIds.get(ins.mods);
    if (mods === undefined) {
      mods = this.id(ins.mods.join('.'));
      this.modsIds.set(ins.mods, mods);
    }
    this.step(mods);
    if (ins.guard === undefined) this.step(Mark.NoGuard);
    else {
      this.step(ins.guard.negate ? Mark.NegGuard : Mark.Guard);
      this.step(this.id(ins.guard.reg.type));
    }
    if (ins.selectors === undefined) this.step(Mark.NoSelectors);
    else {
      this.step(Mark.Selectors);
      this.step(ins.selectors.length);
      for (const x of ins.selectors) this.step(this.id(x ?? ''));
    }
    this.step(ins.operands.length);
    for (const o of ins.operands) this.operand(o);
    return this.at;
  }

  /** One number further down the key. */
  private step(n: number): void {
    const at = this.at;
    let next = at.next.get(n);
    if (next === undefined) {
      next = new SelectionKind();
      at.next.set(n, next);
    }
    this.at = next;
  }

  private id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.ids.size;
      this.ids.set(s, i);
    }
    return i;
  }

  private int(v: bigint): void {
    let i = this.intIds.get(v);
    if (i === undefined) {
      i = this.intIds.size;
      this.intIds.set(v, i);
    }
    this.step(i);
  }

  private variable(v: VarInfo): void {
    let i = this.varIds.get(v);
    if (i === undefined) {
      const d = v.decl;
      const shape = `${v.storage}:${v.space}:${d.type}:${d.vector}:${v.size}:${v.align}:${d.dims.join(',')}`;
      const named = v.storage === 'module' || v.storage === 'cta' ? `${shape}:${v.name}` : shape;
      i = this.id(d.fields === undefined ? named : `${named}:${JSON.stringify(d.fields.map((f) => [f.name, f.value]))}`);
      this.varIds.set(v, i);
    }
    this.step(i);
  }

  private operand(o: ROperand): void {
    switch (o.kind) {
      case 'reg': this.step(Mark.Reg); this.step(this.id(o.reg.type)); return;
      case 'regplus': this.step(Mark.RegPlus); this.step(this.id(o.reg.type)); this.int(o.addend); return;
      case 'special': this.step(Mark.Special); this.step(this.id(o.name)); this.step(o.comp + 1); return;
      case 'int': this.step(Mark.Int); this.int(o.value); return;
      case 'float': this.step(Mark.Float); this.step(this.id(`${o.value}:${o.f32Bits ?? ''}`)); return;
      case 'var': this.step(Mark.Var); this.variable(o.v); this.int(o.addend); return;
      case 'varidx': this.step(Mark.VarIdx); this.variable(o.v); this.step(this.id(o.reg.type)); this.step(o.scale); this.int(o.addend); return;
      case 'label': this.step(Mark.Label); return;
      case 'func': this.step(Mark.Func); this.step(this.id(o.name)); return;
      case 'proto': this.step(Mark.Proto); this.step(this.id(o.name)); return;
      case 'sink': this.step(Mark.Sink); return;
      case 'unresolved': this.step(Mark.Unresolved); this.step(this.id(o.name)); return;
      case 'addr':
        this.step(Mark.Addr);
        if (o.base === undefined) this.step(Mark.NoBase);
        else this.operand(o.base);
        this.int(o.offset);
        return;
      case 'vec': case 'list':
        this.step(o.kind === 'vec' ? Mark.Vec : Mark.List);
        this.step(o.items.length);
        for (const x of o.items) this.operand(x);
        return;
      case 'not': case 'neg': this.step(o.kind === 'not' ? Mark.Not : Mark.Neg); this.operand(o.inner); return;
      case 'pair': this.step(Mark.Pair); this.operand(o.a); this.operand(o.b); return;
    }
  }
}
