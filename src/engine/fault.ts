/**
 * The text of a fault report (cuda-gdb style), shared by `run`, batch mode, the TUI and DAP.
 * Functions are named as gdb's frames name them (`rec`, `scale<float, 4>`), never mangled.
 */
import type { FaultReport } from '../exec/machine.js';
import { printName } from '../ptx/names.js';

export function formatFault(f: FaultReport): string {
  const where = f.file ? `${f.file.split('/').pop()}:${f.line}` : `instruction ${f.pc}`;
  const lines = [
    `ptxdbg: ${f.kind === 'assert' ? 'assertion failed' : f.kind}: ${f.message}`,
    f.block ? `  in block (${f.block.join(',')}) thread (${f.thread!.join(',')}), warp ${f.warp} lane ${f.lane}` : '',
    `  at ${where} in ${printName(f.function)}, PTX instruction ${f.pc}: ${f.ptx}`,
  ];
  // runaway recursion leaves thousands of identical frames: a run of them is one line with its count
  const callers = f.callers.map((c) => `  called from ${c.file ? `${c.file.split('/').pop()}:${c.line}` : `instruction ${c.pc}`} in ${printName(c.function)}`);
  for (let i = 0; i < callers.length;) {
    let j = i + 1;
    while (j < callers.length && callers[j] === callers[i]) j++;
    lines.push(j - i > 2 ? `${callers[i]!} (${j - i} times over)` : callers[i]!);
    if (j - i === 2) lines.push(callers[i]!);
    i = j;
  }
  for (const h of f.hints ?? []) lines.push(`  ${h}`);
  return lines.filter(Boolean).join('\n');
}

