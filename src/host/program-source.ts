/**
 * The engine's view of a whole program's recording (src/engine/program/source.ts) made from the
 * host's ProgramRecording: launches with their call sites, host events, output, and each
 * launch's start state built in memory (the Launch a captured bundle's launch.json would give,
 * without writing the bundle), so `openProgramEngine` can record a launch when it is visited.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { plainName } from '../ptx/names.js';
import { type Launch, MAX_BUFFER_BYTES } from '../exec/launch.js';
import type { FaultReport } from '../exec/machine.js';
import { Bank, BANK_BYTES, GlobalArena, type Allocation, type ResidentMemory } from '../exec/memory.js';
import { loadBytes } from '../exec/bank-pages.js';
import { ImageTable } from '../exec/texture/image.js';
import type { LaunchStart, ProgramEventInfo, ProgramLaunch, ProgramSource } from '../engine/index.js';
import { type LaunchSnapshot, writeBundle } from './bundle.js';
import { WINDOW_BASE } from './device.js';
import { launchSnapshotAt, memoryAt, type ProgramRecording, readImage } from './recording.js';

/** The recording as the engine reads it. */
export function programSource(rec: ProgramRecording): ProgramSource {
  const launches: ProgramLaunch[] = rec.launches.map((l) => ({
    index: l.launch, kernel: l.kernel, module: l.module, grid: [...l.grid], block: [...l.block], site: l.site?.text,
    // the faulting warp-step ran but never completed: a launch's positions end before it (trace.ts)
    steps: l.fault && l.steps !== undefined && l.steps > 0 ? l.steps - 1 : l.steps,
    recorded: l.start !== undefined && l.params !== undefined, launchedBy: l.request.launchedBy, fault: l.fault ? faultLine(l.fault) : undefined,
  }));
  const events: ProgramEventInfo[] = rec.events.map((e): ProgramEventInfo => {
    if (e.kind === 'launch') return { kind: 'launch', event: e.index, launch: e.launch };
    if (e.kind === 'output') return { kind: 'output', event: e.index, stream: e.stream, text: e.text };
    return {
      kind: 'host', event: e.index, api: e.site?.api ?? e.op.op, op: e.op.op, site: e.site?.text,
      writes: e.writes.map((w) => ({ address: WINDOW_BASE + BigInt(w.offset), size: 'bytes' in w ? w.bytes.length : w.n })),
    };
  });
  const dir = dirname(rec.app);
  return {
    app: rec.app, args: rec.args, launches, events, modules: rec.modules,
    get exitCode() { return rec.exitCode; },
    get stopped() { return rec.stopped; },
    start(n: number): LaunchStart | undefined {
      const snap = launchSnapshotAt(rec, n);
      if (!snap) return undefined;
      const l = rec.launches[n - 1]!;
      // the session's name for the module: beside the program (its CUDA sources are found by .file)
      return { ptxPath: join(dir, `${basename(rec.app)}.module${l.module}.ptx`), ptxText: snap.ptx, launch: launchOfSnapshot(snap) };
    },
    memoryAt: (event, address, n) => memoryAt(rec, event, address, n),
    capture: (n, into) => captureLaunch(rec, n, into),
  };
}

/**
 * Launch n as the bundle `ptxdbg capture` writes (src/host/program.ts names it the same way):
 * its start state, and as expected/ the regions' bytes at its end and its printf output.
 */
function captureLaunch(rec: ProgramRecording, n: number, into: string): string | undefined {
  const snap = launchSnapshotAt(rec, n);
  const l = rec.launches[n - 1];
  if (!snap || !l) return undefined;
  const out = join(into, `${String(n).padStart(4, '0')}-${plainName(l.kernel)}`);
  // a region a launch file cannot hold (launch.ts reads one of at most MAX_BUFFER_BYTES)
  const big = snap.regions.find((g) => g.size > MAX_BUFFER_BYTES);
  if (big) throw Object.assign(new Error(`launch ${n} holds an allocation of ${big.size} bytes, more than the ${MAX_BUFFER_BYTES / 2 ** 30} GiB one region of a capture bundle holds`), { code: 'EFBIG' });
  writeBundle(out, snap);
  if (l.end) {
    mkdirSync(join(out, 'expected'), { recursive: true });
    for (const g of snap.regions) writeFileSync(join(out, 'expected', `${g.name}.bin`), readImage(l.end, g.offset, g.size));
    writeFileSync(join(out, 'stdout.txt'), l.stdout);
  }
  return out;
}

/** A fault in one line: what, where in the source, which thread. */
function faultLine(f: FaultReport): string {
  const what = f.message.split('\n')[0]!.replace(/ at 0x[0-9a-f]+$/i, '');
  const where = f.file ? ` at ${basename(f.file)}:${f.line}` : '';
  const who = f.block && f.thread ? `, block (${f.block.join(',')}) thread (${f.thread.join(',')})` : '';
  return `${what}${where}${who}`;
}

/**
 * A launch and the device memory it starts from, as a Launch: what parsing the bundle's
 * launch.json and in/ files gives (src/exec/launch.ts, its "device" section), built in memory.
 */
export function launchOfSnapshot(s: LaunchSnapshot): Launch {
  const r = s.request;
  let extent = s.heap.end + 256;
  for (const g of s.regions) extent = Math.max(extent, g.offset + Math.ceil(Math.max(g.size, 1) / 256) * 256 + 256);
  // past 4 GiB the regions' banks are made as they are placed (allocateAt)
  const arena = new GlobalArena(Math.min(extent, BANK_BYTES));
  arena.reserveHeapAt(s.heap.start, s.heap.end - s.heap.start, s.heap.top);
  const globals = new Map<string, number>();
  const outputs: Allocation[] = [];
  for (const g of s.regions) {
    outputs.push(arena.allocateAt(g.offset, g.size, g.name, g.kind));
    const { bank, at } = arena.bankAt(g.offset);
    loadBytes(bank!, g.bytes, at);
    if (g.kind === 'global') globals.set(g.variable ?? g.name, g.offset);
  }
  let constBank: Bank | undefined;
  if (s.constBytes) {
    constBank = new Bank(Math.max(16, s.constBytes.length));
    constBank.u8.set(s.constBytes);
  }
  const images = new ImageTable();
  for (const im of s.images) images.add(im);
  const resident: ResidentMemory = { arena, globals, constBank, outputs, images };
  return {
    kernel: r.kernel, grid: [...r.grid], block: [...r.block], sharedBytes: r.sharedBytes,
    args: s.paramSlots.map((p, i) => ({ kind: 'bytes' as const, name: s.paramNames[i] ?? `arg${i}`, bytes: r.params.slice(p.offset, p.offset + p.size) })),
    resident, ...(r.cooperative ? { cooperative: true } : {}), ...(r.depth ? { depth: r.depth } : {}),
  };
}
