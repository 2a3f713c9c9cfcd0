/** Human-readable `ptxdbg races` output. */
import { printName } from '../ptx/names.js';
import type { AccessReport, RaceEntry, RaceReport } from './types.js';

function where(a: AccessReport): string {
  return a.file ? `${a.file}:${a.line}` : `instruction ${a.pc}`;
}

function accessLine(a: AccessReport): string {
  const who = `block (${a.block.join(',')}) thread (${a.thread.join(',')})`;
  return `    ${a.op.padEnd(6)} by ${who} at ${where(a)}, step ${a.step}: ${a.ptx}  [${printName(a.function)} #${a.pc}]`;
}

/** The source name of a function-local static (`_ZZ13transposeRacyPKfPfiE4tile` → `tile`). */
export function localStaticName(symbol: string): string {
  const m = /E(\d+)([A-Za-z_]\w*)$/.exec(symbol);
  return symbol.startsWith('_ZZ') && m && Number(m[1]) === m[2]!.length ? m[2]! : symbol;
}

function target(r: RaceEntry): string {
  const addr = `0x${r.address.toString(16)}`;
  const name = r.variable ?? r.buffer ?? (r.symbol !== null ? `${localStaticName(r.symbol)} + ${r.symbolOffset} bytes` : null);
  return name ? `${addr} (${name})` : addr;
}

export function raceBlock(r: RaceEntry, i: number, label: string): string[] {
  const tags = [r.intraWarp ? 'intra-warp' : '', r.count > 1 ? `${r.count} occurrences` : '', r.seeds ? `seeds ${r.seeds.join(',')}` : '']
    .filter(Boolean).join(', ');
  return [
    `${label} ${i + 1}: ${r.kind} on ${r.space} memory at ${target(r)}${tags ? ` — ${tags}` : ''}${r.grid ? ` (in the child grid ${r.grid})` : ''}`,
    accessLine(r.accesses[0]),
    accessLine(r.accesses[1]),
  ];
}

export function formatReport(rep: RaceReport): string {
  const out: string[] = [];
  rep.races.forEach((r, i) => out.push(...raceBlock(r, i, 'race')));
  if (rep.truncated > 0) out.push(`(${rep.truncated} further distinct races not kept)`);
  rep.benign.forEach((r, i) => out.push(...raceBlock(r, i, 'benign (same value written)')));
  for (const e of rep.barrierErrors) {
    const at = e.file ? `${e.file}:${e.line}` : `instruction ${e.pc}`;
    out.push(`barrier ${e.kind} in block (${e.block.join(',')})${e.grid ? ` of the child grid ${e.grid}` : ''} at ${at}: ${e.ptx}  [${printName(e.function)} #${e.pc}]`);
    out.push(`    ${e.message}${e.seeds ? ` (seeds ${e.seeds.join(',')})` : ''}`);
  }
  if (rep.fault) out.push(`the run stopped early: ${rep.fault}`);
  if (rep.schedules) {
    const s = rep.schedules;
    out.push(`${s.count} random schedule(s), seeds ${s.seeds.join(',')}: outputs ${s.outputsDiffer ? `differ (${s.differing.join(', ')})` : 'identical'}`);
  }
  const n = (k: number, w: string): string => `${k} ${w}${k === 1 ? '' : 's'}`;
  out.push(`${n(rep.races.length, 'race')}, ${n(rep.benign.length, 'benign race')}, ${n(rep.barrierErrors.length, 'barrier error')}`);
  return out.join('\n') + '\n';
}
