/**
 * The Variables pane's data: the focused thread's locals, arguments and globals as a tree
 * (grouped by address space, structs and arrays expandable), flattened into rows for display.
 * Without DWARF variables (an -O3 build) the text of `info locals` / `info args` is shown.
 */
import { childExpr, type HostStop, PrintError, type SpaceName, type VarNode } from '#engine';
import type { Model } from './model.js';
import { lines } from './text.js';

export type { VarNode };

export interface VarTree {
  readonly locals: readonly VarNode[];
  readonly args: readonly VarNode[];
  readonly globals: readonly VarNode[];
}

export type VarRow =
  | { readonly kind: 'header'; readonly label: string }
  | { readonly kind: 'text'; readonly text: string; readonly error: boolean }
  | {
    readonly kind: 'var';
    readonly node: VarNode;
    readonly depth: number;
    /** Unique key for the expansion state. */
    readonly path: string;
    /** C expression naming the value, for `watch` / `print`; undefined for summary rows. */
    readonly expr: string | undefined;
    readonly expanded: boolean;
  };

export type VarData = { readonly kind: 'tree'; readonly tree: VarTree } | { readonly kind: 'text'; readonly text: string; readonly error: boolean };

function textOf(f: () => string): { text: string; error: boolean } {
  try {
    return { text: f(), error: false };
  } catch (e) {
    if (!(e instanceof PrintError)) throw e;
    return { text: e.message, error: true };
  }
}

function textFallback(model: Model): VarData {
  const locals = textOf(() => model.engine.localsText());
  const args = textOf(() => model.engine.argsText());
  const parts: string[] = [];
  if (args.text.trim() && !args.error) parts.push('── args', ...lines(args.text));
  parts.push('── locals', ...lines(locals.text));
  return { kind: 'text', text: parts.join('\n'), error: locals.error };
}

/**
 * What the Variables and Registers panes say at a host call: no device thread runs there (first,
 * so a narrow pane still shows it), then the call.
 */
export function hostNote(h: HostStop): string {
  return `no device thread at a host call:\n${h.what}${h.site ? ` at ${h.site}` : ''}`;
}

/** Current variables of the focused thread (once per generation). */
export function variableData(model: Model): VarData {
  return model.cached('variables', () => {
    // at a host call no device thread runs: no launch's values (they would be stale)
    const host = model.engine.hostStop();
    if (host) return { kind: 'text', text: hostNote(host), error: false };
    if (!model.engine.hasVariables()) return textFallback(model);
    try {
      return { kind: 'tree', tree: model.engine.variableTree() };
    } catch (e) {
      return { kind: 'text', text: e instanceof Error ? e.message : String(e), error: true };
    }
  });
}

/** Where an expression's value lives, for the Memory pane (undefined when not in memory). */
export function addressOf(model: Model, expr: string): { space: SpaceName; address: bigint } | undefined {
  return model.engine.addressOf(expr);
}

function pushNode(out: VarRow[], node: VarNode, depth: number, path: string, expr: string | undefined, expanded: ReadonlySet<string>): void {
  const open = expanded.has(path);
  out.push({ kind: 'var', node, depth, path, expr, expanded: open });
  if (!open || !node.children) return;
  for (const c of node.children) pushNode(out, c, depth + 1, `${path}/${c.name}`, childExpr(expr, c.name), expanded);
}

/** Rows to display: a header per (group, address space), then the variables, expanded as asked. */
export function variableRows(data: VarData, expanded: ReadonlySet<string>): VarRow[] {
  if (data.kind === 'text') {
    return lines(data.text).map((t) => (t.startsWith('── ') ? { kind: 'header', label: t.slice(3) } : { kind: 'text', text: t, error: data.error }));
  }
  const out: VarRow[] = [];
  const groups: [string, readonly VarNode[]][] = [['locals', data.tree.locals], ['args', data.tree.args], ['globals', data.tree.globals]];
  for (const [label, nodes] of groups) {
    const spaces = [...new Set(nodes.map((n) => n.space))];
    for (const sp of spaces) {
      out.push({ kind: 'header', label: `${label} · ${sp}` });
      for (const n of nodes) if (n.space === sp) pushNode(out, n, 0, `${label}/${n.name}`, n.name, expanded);
    }
  }
  if (out.length === 0) out.push({ kind: 'text', text: 'no variables here', error: false });
  return out;
}
