/** The text of a fault report (cuda-gdb style), shared by `run`, batch mode, the TUI and DAP. */
import type { FaultReport } from '../exec/machine.js';

export function formatFault(f: FaultReport): string {
  const where = f.file ? `${f.file.split('/').pop()}:${f.line}` : `instruction ${f.pc}`;
  const lines = [
    `ptxdbg: ${f.kind === 'assert' ? 'assertion failed' : f.kind}: ${f.message}`,
    f.block ? `  in block (${f.block.join(',')}) thread (${f.thread!.join(',')}), warp ${f.warp} lane ${f.lane}` : '',
    `  at ${where} in ${f.function}, PTX instruction ${f.pc}: ${f.ptx}`,
  ];
  for (const c of f.callers) {
    lines.push(`  called from ${c.file ? `${c.file.split('/').pop()}:${c.line}` : `instruction ${c.pc}`} in ${c.function}`);
  }
  for (const h of f.hints ?? []) lines.push(`  ${h}`);
  return lines.filter(Boolean).join('\n');
}

