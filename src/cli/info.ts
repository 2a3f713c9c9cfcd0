/** `ptxdbg info`: what a PTX module contains (entries, functions, variables, debug info). */
import type { Program, VarInfo } from '../ptx/resolve.js';
import { requireProgram } from './common.js';

interface VarSummary { name: string; space: string; type: string; size: number; align: number }

export function moduleInfo(p: Program): Record<string, unknown> {
  const varOf = (v: VarInfo): VarSummary => ({
    name: v.name, space: v.space, type: v.decl.type + (v.decl.dims.length ? v.decl.dims.map((d) => `[${d ?? ''}]`).join('') : ''), size: v.size, align: v.align,
  });
  const fns = [...p.functions.values()];
  const sections = p.module.items.filter((i) => i.kind === 'section').map((s) => (s.kind === 'section' ? s.name : ''));
  return {
    version: p.module.version ?? null,
    target: p.module.target,
    addressSize: p.module.addressSize,
    entries: fns.filter((f) => f.isEntry).map((f) => ({
      name: f.name,
      params: f.params.map((v) => ({ name: v.name, type: v.decl.type + (v.decl.dims.length ? `[${v.decl.dims.join('][')}]` : ''), size: v.size, align: v.align })),
      instructions: f.instrs.length,
      performance: Object.fromEntries(f.decl.perf),
    })),
    functions: fns.filter((f) => !f.isEntry).map((f) => ({ name: f.name, params: f.params.length, returns: f.rets.length, instructions: f.instrs.length })),
    externs: [...p.prototypes.keys()],
    globals: p.globals.map(varOf),
    shared: p.shared.map(varOf),
    files: Object.fromEntries(p.files),
    debugSections: sections,
    hasDwarf: sections.includes('.debug_info'),
    hasLineInfo: fns.some((f) => f.locFile.some((x) => x >= 0)),
    instructionCount: fns.reduce((n, f) => n + f.instrs.length, 0),
  };
}

export function infoCommand(file: string, json: boolean): number {
  const p = requireProgram(file);
  if (!p) return 1;
  const info = moduleInfo(p);
  if (json) {
    process.stdout.write(JSON.stringify(info, null, 2) + '\n');
    return 0;
  }
  const out: string[] = [];
  out.push(`${file}: PTX ${info['version']}, target ${(info['target'] as string[]).join(', ')}, ${info['addressSize']}-bit addresses`);
  for (const e of info['entries'] as { name: string; params: { name: string; type: string; size: number }[]; instructions: number }[]) {
    out.push(`entry ${e.name} (${e.instructions} instructions)`);
    for (const q of e.params) out.push(`  param ${q.name}: .${q.type} (${q.size} bytes)`);
  }
  for (const f of info['functions'] as { name: string; params: number; returns: number; instructions: number }[]) {
    out.push(`func  ${f.name}: ${f.params} param(s), ${f.returns} return value(s), ${f.instructions} instructions`);
  }
  const ext = info['externs'] as string[];
  if (ext.length) out.push(`extern: ${ext.join(', ')}`);
  for (const v of [...(info['globals'] as VarSummary[]), ...(info['shared'] as VarSummary[])]) out.push(`.${v.space.padEnd(6)} ${v.name}: .${v.type} (${v.size} bytes, align ${v.align})`);
  const files = info['files'] as Record<string, string>;
  for (const [k, v] of Object.entries(files)) out.push(`file ${k}: ${v}`);
  out.push(`DWARF: ${info['hasDwarf'] ? 'yes' : 'no'} (sections: ${(info['debugSections'] as string[]).join(' ') || 'none'}); line info (.loc): ${info['hasLineInfo'] ? 'yes' : 'no'}`);
  out.push(`instructions: ${info['instructionCount']}`);
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}
