/**
 * The variables a front end browses (DAP's scopes and variablesReference): a frame's variables by
 * address space, the warp view of its locals, its registers, and the containers their children
 * are built from when first asked for (valid until the next move or focus change).
 */
import { EngineError } from './errors.js';
import { PrintError, variableTree, type VarNode } from './print/index.js';
import type { Session } from './session.js';
import type { Evaluation, LaneValue, Scope, Variable } from './types.js';
import { childExpr, registerValue } from './values.js';

const SPACE_SCOPES: readonly { space: string; name: string }[] = [
  { space: 'register', name: 'Locals · register' },
  { space: 'local', name: 'Locals · local' },
  { space: 'param', name: 'Params' },
  { space: 'shared', name: 'Shared' },
  { space: 'global', name: 'Global' },
  { space: 'const', name: 'Constant' },
  { space: 'generic', name: 'Generic' },
];

/** Children made on demand, by id. */
export class Containers {
  private readonly made = new Map<number, () => Variable[]>();
  private next = 1;

  add(make: () => Variable[]): number {
    const id = this.next++;
    this.made.set(id, make);
    return id;
  }

  get(id: number): Variable[] {
    const make = this.made.get(id);
    if (!make) throw new EngineError(`no variable container ${id} (they last until the next move)`, 'out-of-range');
    return make();
  }

  clear(): void { this.made.clear(); }
}

interface Deps {
  readonly containers: Containers;
  readonly evaluate: (expr: string, frame: number) => Evaluation;
  readonly lanes: (expr: string) => LaneValue[];
}

function variableOf(d: Deps, n: VarNode, expr: string | undefined, frame: number): Variable {
  let mem: string | undefined;
  if (expr !== undefined) {
    try { mem = d.evaluate(expr, frame).memoryReference; } catch (e) { if (!(e instanceof EngineError)) throw e; }
  }
  const kids = n.children;
  const containerId = kids?.length ? d.containers.add(() => kids.map((c) => variableOf(d, c, childExpr(expr, c.name), frame))) : 0;
  return { name: n.name, value: n.value, type: n.type, containerId, expression: expr, memoryReference: mem };
}

/** The scopes of a frame (already selected) of the focused thread: its variables by address space, the warp view, and its PTX registers. */
export function frameScopes(s: Session, frame: number, containers: Containers, evaluate: Deps['evaluate'], lanes: Deps['lanes']): Scope[] {
  const d: Deps = { containers, evaluate, lanes };
  const info = s.debugInfo();
  const out: Scope[] = [];
  let tree: { locals: VarNode[]; args: VarNode[]; globals: VarNode[] } | undefined;
  try {
    tree = info.hasVariables ? variableTree(info, s.threadView()) : undefined;
  } catch (e) {
    if (!(e instanceof PrintError)) throw e;
  }
  if (tree) {
    const t = tree;
    for (const { space, name } of SPACE_SCOPES) {
      const nodes = space === 'param' ? [...t.args, ...t.locals.filter((n) => n.space === 'param')]
        : [...t.locals.filter((n) => n.space === space), ...t.globals.filter((n) => n.space === space)];
      if (!nodes.length) continue;
      const hint = space === 'param' ? 'arguments' : space === 'register' || space === 'local' ? 'locals' : 'globals';
      out.push({ name, hint, count: nodes.length, containerId: containers.add(() => nodes.map((n) => variableOf(d, n, n.name, frame))) });
    }
  }
  if (tree && frame === 0) {
    // the warp view: each local and argument with 32 children, one per lane of the focused warp
    const names = [...new Set([...tree.locals, ...tree.args].map((n) => n.name))];
    if (names.length) {
      out.push({
        name: 'Lanes', hint: 'locals', count: names.length,
        containerId: containers.add(() => names.map((name) => ({
          name, value: '32 lanes', type: '', expression: undefined, memoryReference: undefined,
          containerId: containers.add(() => lanes(name).map((l) => ({
            name: `lane ${l.lane} (${l.thread.join(',')})${l.state === 'active' ? '' : ` ${l.state}`}`, value: l.value, type: '', containerId: 0, expression: undefined, memoryReference: undefined,
          }))),
        }))),
      });
    }
  }
  const regs = s.registers();
  out.push({
    name: 'Registers', hint: 'registers', count: regs.length,
    containerId: containers.add(() => regs.map((r) => ({ name: r.name, value: registerValue(r.type, r.bits), type: r.type, containerId: 0, expression: `$${r.name.slice(1)}`, memoryReference: undefined }))),
  });
  return out;
}
