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
 * instruction can be selected depends only on what selectionKey writes down, so each kind of
 * instruction is selected once per module: a big module repeats a few thousand kinds hundreds of
 * thousands of times.
 */
export function supportVerdict(program: Program): (fn: ProgFunction) => number {
  const layout = selectionLayout(program);
  const known = new Map<string, boolean>();
  return (fn) => selectOnly(() => {
    let fc: FnCompiler | undefined;
    let bad = 0;
    const instrs = fn.instrs;
    for (let i = 0; i < instrs.length; i++) {
      const ins = instrs[i]!;
      const key = selectionKey(ins);
      let ok = known.get(key);
      if (ok === undefined) {
        fc ??= new FnCompiler(fn, layout);
        ok = selectInstr(fc, ins, i, -1).ctl !== Ctl.Unsupported;
        known.set(key, ok);
      }
      if (!ok) bad++;
    }
    return bad;
  });
}

/**
 * Everything of an instruction that instruction selection (exec/compile/**) reads, except what
 * cannot make it refuse: register slots, label targets, frame offsets and source spans. A
 * register is its type; a variable its storage, space, declaration type, shape and, for one of
 * the module or the CTA, its name (textures and samplers are bound by name) and initializer fields.
 */
export function selectionKey(ins: RInstruction): string {
  let k = ins.opcode + '|' + ins.mods.join('.') + '|';
  if (ins.guard !== undefined) k += (ins.guard.negate ? '!' : '@') + ins.guard.reg.type;
  if (ins.selectors !== undefined) k += '|s' + ins.selectors.map((s) => s ?? '').join(',');
  for (const o of ins.operands) k += '|' + operandKey(o);
  return k;
}

function operandKey(o: ROperand): string {
  switch (o.kind) {
    case 'reg': return 'r' + o.reg.type;
    case 'regplus': return 'r+' + o.reg.type + ':' + o.addend;
    case 'special': return '%' + o.name + '.' + o.comp;
    case 'int': return 'i' + o.value;
    case 'float': return 'f' + o.value + ':' + (o.f32Bits ?? '');
    case 'var': return 'v' + varKey(o.v) + '+' + o.addend;
    case 'varidx': return 'x' + varKey(o.v) + '[' + o.reg.type + '*' + o.scale + ']+' + o.addend;
    case 'label': return 'L';
    case 'func': return 'F' + o.name;
    case 'proto': return 'P' + o.name;
    case 'sink': return '_';
    case 'unresolved': return '?' + o.name;
    case 'addr': return '[' + (o.base === undefined ? '' : operandKey(o.base)) + '+' + o.offset + ']';
    case 'vec': return '{' + o.items.map(operandKey).join(',') + '}';
    case 'list': return '(' + o.items.map(operandKey).join(',') + ')';
    case 'not': return '~' + operandKey(o.inner);
    case 'neg': return '-' + operandKey(o.inner);
    case 'pair': return operandKey(o.a) + '/' + operandKey(o.b);
  }
}

function varKey(v: VarInfo): string {
  const d = v.decl;
  const shape = v.storage + ':' + v.space + ':' + d.type + ':' + d.vector + ':' + v.size + ':' + v.align + ':' + d.dims.join(',');
  const named = v.storage === 'module' || v.storage === 'cta' ? shape + ':' + v.name : shape;
  return d.fields === undefined ? named : named + ':' + JSON.stringify(d.fields.map((f) => [f.name, f.value]));
}
