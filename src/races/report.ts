/**
 * From the checker's raw findings (global thread ids, global pcs, arena offsets) to the report
 * contract: block and thread coordinates, source file:line, PTX text, variable names.
 */
import { coordsOf } from '../exec/launch.js';
import type { Machine } from '../exec/machine.js';
import { KIND_NAMES, OP_ATOMIC, OP_WRITE, RaceChecker, type RawAccess, type RawRace } from './checker.js';
import type { AccessReport, BarrierError, Dim3, RaceEntry, RaceReport } from './types.js';
import { AddressNamer } from './variables.js';

export function blockCoords(machine: Machine, ctaId: number): Dim3 {
  return coordsOf(ctaId, machine.launch.grid);
}

export function threadCoords(machine: Machine, t: number): Dim3 {
  return coordsOf(t, machine.launch.block);
}

function accessReport(machine: Machine, checker: RaceChecker, a: RawAccess, nthreads: number): AccessReport {
  const loc = checker.instr.location(a.gpc);
  const cta = Math.floor(a.gtid / nthreads);
  return {
    block: blockCoords(machine, cta),
    thread: threadCoords(machine, a.gtid - cta * nthreads),
    op: a.op === OP_ATOMIC ? 'atomic' : a.op === OP_WRITE ? 'write' : 'read',
    file: loc.file, line: loc.line, pc: loc.pc, step: a.step, function: loc.function, ptx: loc.ptx, path: loc.path,
  };
}

function raceEntry(machine: Machine, checker: RaceChecker, namer: AddressNamer, r: RawRace): RaceEntry {
  const [bx, by, bz] = machine.launch.block;
  const n = bx * by * bz;
  const shared = r.space === 1;
  const name = shared ? namer.shared(r.offset) : namer.global(r.offset);
  return {
    kind: KIND_NAMES[r.kind]!,
    space: shared ? 'shared' : 'global',
    address: shared ? r.offset : RaceChecker.globalAddress(r.offset),
    variable: name.variable,
    intraWarp: r.intraWarp,
    accesses: [accessReport(machine, checker, r.a, n), accessReport(machine, checker, r.b, n)],
    symbol: name.symbol,
    symbolOffset: name.symbolOffset,
    buffer: name.buffer,
    count: r.count,
  };
}

/** The report of one checked run (the checker must have finished). */
export function buildReport(machine: Machine, checker: RaceChecker): RaceReport {
  const namer = new AddressNamer(machine);
  // in execution order of the pair (deterministic: steps are)
  const order = (a: RawRace, b: RawRace): number => a.a.step - b.a.step || a.b.step - b.b.step || a.a.gpc - b.a.gpc || a.b.gpc - b.b.gpc;
  const races = [...checker.races.values()].sort(order).map((r) => raceEntry(machine, checker, namer, r));
  const benign = [...checker.benign.values()].sort(order).map((r) => raceEntry(machine, checker, namer, r));
  const barrierErrors: BarrierError[] = checker.barrierErrors.map((e) => {
    const loc = checker.instr.location(e.gpc);
    return {
      kind: e.kind, block: blockCoords(machine, e.ctaId), file: loc.file, line: loc.line, pc: loc.pc,
      function: loc.function, ptx: loc.ptx, message: e.message,
    };
  });
  const f = machine.fault;
  return {
    races, benign, barrierErrors, truncated: checker.truncated,
    fault: f && f.kind !== 'deadlock' ? `${f.kind}: ${f.message}` : null,
  };
}
