/**
 * The engine's view of a whole program's recording (src/engine/program/source.ts) made from the
 * host's ProgramRecording: launches with their call sites, host events, output, and each
 * launch's start state built in memory (the Launch a captured bundle's launch.json would give,
 * without writing the bundle), so `openProgramEngine` can record a launch when it is visited.
 */
import { basename, dirname, join } from 'node:path';
import type { Launch } from '../exec/launch.js';
import { Bank, GlobalArena, type Allocation, type ResidentMemory } from '../exec/memory.js';
import { loadBytes } from '../exec/bank-pages.js';
import { ImageTable } from '../exec/texture/image.js';
import type { LaunchStart, ProgramEventInfo, ProgramLaunch, ProgramSource } from '../engine/index.js';
import type { LaunchSnapshot } from './bundle.js';
import { WINDOW_BASE } from './device.js';
import { launchSnapshotAt, memoryAt, type ProgramRecording } from './recording.js';

/** The recording as the engine reads it. */
export function programSource(rec: ProgramRecording): ProgramSource {
  const launches: ProgramLaunch[] = rec.launches.map((l) => ({
    index: l.launch, kernel: l.kernel, module: l.module, grid: [...l.grid], block: [...l.block], site: l.site?.text, steps: l.steps,
    recorded: l.start !== undefined && l.params !== undefined, launchedBy: l.request.launchedBy,
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
  };
}

/**
 * A launch and the device memory it starts from, as a Launch: what parsing the bundle's
 * launch.json and in/ files gives (src/exec/launch.ts, its "device" section), built in memory.
 */
export function launchOfSnapshot(s: LaunchSnapshot): Launch {
  const r = s.request;
  let extent = s.heap.end + 256;
  for (const g of s.regions) extent = Math.max(extent, g.offset + Math.ceil(Math.max(g.size, 1) / 256) * 256 + 256);
  const arena = new GlobalArena(extent);
  arena.reserveHeapAt(s.heap.start, s.heap.end - s.heap.start, s.heap.top);
  const globals = new Map<string, number>();
  const outputs: Allocation[] = [];
  for (const g of s.regions) {
    outputs.push(arena.allocateAt(g.offset, g.size, g.name, g.kind));
    loadBytes(arena.bank, g.bytes, g.offset);
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
