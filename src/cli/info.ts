/** `ptxdbg info`: what a PTX module contains (entries, functions, variables, debug info). */
import type { FunctionDecl, Statement } from '../ptx/ast.js';
import type { Program, VarInfo } from '../ptx/resolve.js';
import { requireProgram } from './common.js';

interface VarSummary { name: string; space: string; type: string; size: number; align: number }
interface ParamSummary { name: string; type: string; size: number; align: number }
interface EntrySummary { name: string; params: ParamSummary[]; instructions: number; performance: Record<string, unknown> }
interface FunctionSummary { name: string; params: number; returns: number; instructions: number }

/** The module summary (`--json` prints it as is). */
export interface ModuleInfo {
  version: string | null;
  target: readonly string[];
  addressSize: number;
  entries: EntrySummary[];
  functions: FunctionSummary[];
  externs: string[];
  /** Module-scope variables of every space but shared (global, const, local), in module order. */
  globals: VarSummary[];
  /** Shared variables, module-scope or declared in a function body. */
  shared: VarSummary[];
  files: Record<string, string>;
  debugSections: string[];
  hasDwarf: boolean;
  hasLineInfo: boolean;
  instructionCount: number;
}

/**
 * Instructions written in a body; the resolver adds an implied `ret`/`exit` where control can
 * fall off the end, which is not in the text the user reads.
 */
function writtenInstructions(d: FunctionDecl): number {
  const count = (body: readonly Statement[]): number => body.reduce((n, st) => n + (st.kind === 'instr' ? 1 : st.kind === 'block' ? count(st.body) : 0), 0);
  return count(d.body ?? []);
}

const typeOf = (v: VarInfo): string => v.decl.type + v.decl.dims.map((d) => `[${d ?? ''}]`).join('');

/**
 * Summarises a program resolved whole. A lazily loaded one (bodies resolved only when a kernel
 * launches) would show no functions and no instructions, so it is refused rather than summarised.
 */
export function moduleInfo(p: Program): ModuleInfo {
  if (p.deferred !== undefined) throw new Error('moduleInfo needs every function body resolved: load the module with { lazy: false }');
  const varOf = (v: VarInfo): VarSummary => ({ name: v.name, space: v.space, type: typeOf(v), size: v.size, align: v.align });
  const fns = [...p.functions.values()].map((f) => ({ ...f, written: writtenInstructions(f.decl) }));
  const sections = p.module.items.flatMap((i) => (i.kind === 'section' ? [i.name] : []));
  return {
    version: p.module.version ?? null,
    target: p.module.target,
    addressSize: p.module.addressSize,
    entries: fns.filter((f) => f.isEntry).map((f) => ({
      name: f.name,
      params: f.params.map((v) => ({ name: v.name, type: typeOf(v), size: v.size, align: v.align })),
      instructions: f.written,
      performance: Object.fromEntries(f.decl.perf),
    })),
    functions: fns.filter((f) => !f.isEntry).map((f) => ({ name: f.name, params: f.params.length, returns: f.rets.length, instructions: f.written })),
    externs: [...p.prototypes.keys()],
    globals: p.globals.map(varOf),
    shared: p.shared.map(varOf),
    files: Object.fromEntries(p.files),
    debugSections: sections,
    hasDwarf: sections.includes('.debug_info'),
    hasLineInfo: fns.some((f) => f.locFile.some((x) => x >= 0)),
    instructionCount: fns.reduce((n, f) => n + f.written, 0),
  };
}

export function formatModuleInfo(file: string, info: ModuleInfo): string {
  const out: string[] = [];
  out.push(`${file}: PTX ${info.version}, target ${info.target.join(', ')}, ${info.addressSize}-bit addresses`);
  for (const e of info.entries) {
    out.push(`entry ${e.name} (${e.instructions} instructions)`);
    for (const q of e.params) out.push(`  param ${q.name}: .${q.type} (${q.size} bytes)`);
  }
  for (const f of info.functions) out.push(`func  ${f.name}: ${f.params} param(s), ${f.returns} return value(s), ${f.instructions} instructions`);
  if (info.externs.length) out.push(`extern: ${info.externs.join(', ')}`);
  for (const v of [...info.globals, ...info.shared]) out.push(`.${v.space.padEnd(6)} ${v.name}: .${v.type} (${v.size} bytes, align ${v.align})`);
  for (const [k, v] of Object.entries(info.files)) out.push(`file ${k}: ${v}`);
  out.push(`DWARF: ${info.hasDwarf ? 'yes' : 'no'} (sections: ${info.debugSections.join(' ') || 'none'}); line info (.loc): ${info.hasLineInfo ? 'yes' : 'no'}`);
  out.push(`instructions: ${info.instructionCount}`);
  return out.join('\n') + '\n';
}

export function infoCommand(file: string, json: boolean): number {
  // the whole module: every body parsed and resolved, as `check` reads it (not as `run` does)
  const p = requireProgram(file, [], { lazy: false });
  if (!p) return 1;
  const info = moduleInfo(p);
  process.stdout.write(json ? JSON.stringify(info, null, 2) + '\n' : formatModuleInfo(file, info));
  return 0;
}
