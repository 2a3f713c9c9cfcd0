/**
 * What each fuzz input goes through, and how its outcome is judged. An outcome is `accepted` (ran,
 * possibly to a located fault), `rejected` (a clear message from the component that owns the
 * input), `internal` (an exception or an "internal error" message: always a bug) or `differs`
 * (a trace file that loaded but shows another state than the one recorded: a silent wrong state).
 */
import { engineOf } from '../../src/engine/api.js';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { Dwarf } from '../../dwarf/src/index.js';
import { dumpDebugInfo } from '../../dwarf/src/index.js';
import { openReplay } from '../../src/cli/debug.js';
import { formatFault } from '../../src/cli/run.js';
import { COMMAND_NAMES, executeCommand } from '../../src/frontends/gdb/commands.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { EngineError } from '../../src/engine/errors.js';
import { defaultLaunch, type Launch, LaunchError, parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { unsupportedInstructions } from '../../src/exec/support.js';
import { sweepShare } from '../../src/cli/check-sweep.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';
import { KernelProblems, type Program } from '../../src/ptx/resolve.js';
import { writeTraceFile } from '../../src/trace/file.js';
import { stateHash } from '../../src/trace/hash.js';
import { ROOT, tempDir } from '../helpers.js';
import {
  applyByteOps, applyDwarfPlan, applyTextPlan, bytePlan, type BytePlan, dwarfPlan, type DwarfPlan, textPlan, type TextPlan,
} from './mutate.js';
import { runWire, type WireInput, wireInputs } from './wire.js';
import { dwarfFromModule } from '../../src/ptx/dwarf.js';

export type Outcome = { kind: 'accepted' | 'rejected' } | { kind: 'internal' | 'differs'; detail: string };

export const KINDS = ['ptx', 'dwarf', 'launch', 'trace', 'commands', 'wire'] as const;
export type Kind = (typeof KINDS)[number];

/** Small warp-step budget: the fuzzer looks for crashes and hangs, not for long runs. */
const MAX_STEPS = 20_000;

/** Samples used as bases: small ones, both builds, so each input runs in milliseconds. */
const BASE_SAMPLES = ['saxpy', 'bug_trap', 'early_return_sync', 'race_shared_raw', 'sync_warp_reduce', 'dyn_shared_mixed', 'local_mem_calls', 'recursion_fnptr'];

interface Base { readonly ptx: string; readonly launch: unknown; readonly dir: string }

let basesCache: Base[] | undefined;
function bases(): Base[] {
  basesCache ??= BASE_SAMPLES.flatMap((name) => ['G', 'O3'].map((b) => {
    const dir = join(ROOT, 'samples', name);
    return { ptx: readFileSync(join(dir, `kernel.${b}.ptx`), 'utf8'), launch: JSON.parse(readFileSync(join(dir, 'launch.json'), 'utf8')) as unknown, dir };
  }));
  return basesCache;
}

const internal = (e: unknown): Outcome => ({ kind: 'internal', detail: e instanceof Error ? (e.stack ?? e.message) : String(e) });
const looksInternal = (text: string): boolean => /internal error|Maximum call stack size exceeded/.test(text);

/** Runs a program under a launch with a small step budget; a located fault is a fine outcome. */
function runProgram(program: Program, launch: Launch): Outcome {
  let m: Machine;
  try {
    m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, maxSteps: MAX_STEPS, heapBytes: 1 << 16 });
  } catch (e) {
    if (e instanceof LaunchError) return { kind: 'rejected' };
    return internal(e);
  }
  const r = m.run();
  if (r.fault) {
    const text = formatFault(r.fault);
    // 'unsupported' is a located refusal (check reports the same instruction); anything else
    // carrying a JavaScript error text is a bug that escaped as a fault
    if (r.fault.kind !== 'unsupported' && (looksInternal(text) || /is not a function|Cannot read properties|is not defined/.test(text))) {
      return { kind: 'internal', detail: text };
    }
  }
  return { kind: 'accepted' };
}

// ---- PTX text ------------------------------------------------------------------------------------

export const ptxInputs = (): fc.Arbitrary<TextPlan> => textPlan(bases().length);

export function runPtx(p: TextPlan): Outcome {
  const b = bases();
  const base = b[p.base % b.length]!;
  const text = applyTextPlan(b.map((x) => x.ptx), p);
  try {
    const loaded = loadPtx(text, 'fuzz.ptx');
    formatDiagnostics('fuzz.ptx', text, loaded.diagnostics);
    // as `run` loads it: bodies parsed and resolved only for the launched kernel
    const lazy = loadPtx(text, 'fuzz.ptx', { lazy: true });
    formatDiagnostics('fuzz.ptx', text, lazy.diagnostics);
    // check's fast verdict (cli/check-sweep.ts) never says clean where the whole load finds anything
    const swept = sweepShare({ text, label: 'fuzz.ptx', share: { index: 0, of: 1 } });
    if (!loaded.program) {
      if (swept) return { kind: 'internal', detail: 'check\'s sweep says clean; the whole load does not load it' };
      return lazy.program ? launchAndRun(lazy.program, base) : { kind: 'rejected' };
    }
    const unsupported = unsupportedInstructions(loaded.program);
    formatDiagnostics('fuzz.ptx', text, unsupported);
    if (swept && (loaded.diagnostics.length > 0 || unsupported.length > 0)) return { kind: 'internal', detail: 'check\'s sweep says clean; the whole load reports problems' };
    if (lazy.program) {
      const o = launchAndRun(lazy.program, base);
      if (o.kind === 'internal') return o;
    }
    return launchAndRun(loaded.program, base);
  } catch (e) {
    return internal(e);
  }
}

/** The base's launch (or the default one when the mutation broke it) run on `program`. */
function launchAndRun(program: Program, base: { launch: unknown; dir: string }): Outcome {
  let launch: Launch;
  try {
    try {
      launch = parseLaunch(base.launch, program, base.dir);
    } catch (e) {
      if (!(e instanceof LaunchError)) throw e;
      // the mutation renamed the kernel or changed its parameters: the default launch still runs it
      launch = defaultLaunch(program);
    }
  } catch (e) {
    if (e instanceof LaunchError) return { kind: 'rejected' };
    if (e instanceof KernelProblems) {
      formatDiagnostics('fuzz.ptx', program.module.source, e.diagnostics);
      return { kind: 'rejected' };
    }
    throw e;
  }
  return runProgram(program, launch);
}

// ---- DWARF ---------------------------------------------------------------------------------------

export const dwarfInputs = (): fc.Arbitrary<DwarfPlan> => dwarfPlan(bases().filter((_, i) => i % 2 === 0).length);

export function runDwarf(p: DwarfPlan): Outcome {
  const gBases = bases().filter((_, i) => i % 2 === 0);
  const base = gBases[p.base % gBases.length]!;
  const text = applyDwarfPlan(gBases.map((x) => x.ptx), p);
  try {
    const loaded = loadPtx(text, 'fuzz.ptx');
    if (!loaded.program) return { kind: 'rejected' };
    dumpDebugInfo(dwarfFromModule(loaded.module));
    let s: Session;
    try {
      s = openSession({ ptxPath: join(base.dir, 'kernel.G.ptx'), ptxText: text, launch: join(base.dir, 'launch.json'), maxSteps: MAX_STEPS });
    } catch (e) {
      if (e instanceof EngineError) return { kind: 'rejected' };
      throw e;
    }
    for (const cmd of ['info locals', 'bt', 'info args', 'next', 'next', 'info locals', 'step', 'bt', 'info variables', 'goto end', 'info locals']) {
      const r = executeCommand(engineOf(s), cmd);
      if (looksInternal(r.output)) return { kind: 'internal', detail: `${cmd}: ${r.output}` };
    }
    return { kind: 'accepted' };
  } catch (e) {
    return internal(e);
  }
}

// ---- launch files --------------------------------------------------------------------------------

const extremeInt = fc.oneof(
  fc.integer({ min: -2, max: 1100 }),
  fc.constantFrom(0, -1, 1, 32, 1024, 1025, 65536, 2 ** 31, 2 ** 32, 2 ** 53, 1e15, 1e300, 0.5, -0.0),
);
const jsonJunk = fc.oneof(extremeInt, fc.string({ maxLength: 6 }), fc.constant(null), fc.boolean(), fc.array(extremeInt, { maxLength: 4 }));
const dims = fc.oneof({ weight: 4, arbitrary: fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 2 }), fc.constant(1)) }, fc.array(extremeInt, { maxLength: 4 }), jsonJunk);
/** `FUZZ/` names a file of the fuzzer's own directory (see launchFiles). */
const fileName = fc.constantFrom('FUZZ/in.bin', 'FUZZ/adir', '/dev/zero', '/dev/null', 'FUZZ/missing.bin', '', '.', '../..', 'FUZZ/huge.bin', '/proc/self/mem');
const elemType = fc.constantFrom('u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'f32', 'f64', 'f16', 'bytes', 'q7', '', 'texture', 'surface');
const arg = fc.record({
  name: fc.oneof(fc.constantFrom('x', 'y', 'n', 'out'), jsonJunk),
  type: fc.oneof({ weight: 4, arbitrary: elemType }, jsonJunk),
  count: fc.option(fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 4096 }) }, extremeInt, jsonJunk), { nil: undefined }),
  file: fc.option(fc.oneof({ weight: 3, arbitrary: fileName }, jsonJunk), { nil: undefined }),
  value: fc.option(fc.oneof({ weight: 3, arbitrary: extremeInt }, fc.double(), jsonJunk, fc.array(fc.integer({ min: -1, max: 256 }), { maxLength: 20 })), { nil: undefined }),
  // texture and surface images (src/exec/texture/spec.ts)
  format: fc.option(fc.oneof(fc.constantFrom('float', 'uchar4', 'half2', 'int', 'char2', 'float5', ''), jsonJunk), { nil: undefined }),
  extent: fc.option(fc.oneof(fc.array(fc.oneof(fc.integer({ min: -2, max: 70000 }), extremeInt), { maxLength: 4 }), jsonJunk), { nil: undefined }),
  layers: fc.option(fc.oneof(fc.integer({ min: -1, max: 5000 }), jsonJunk), { nil: undefined }),
  cube: fc.option(fc.oneof(fc.boolean(), jsonJunk), { nil: undefined }),
  addressMode: fc.option(fc.oneof(fc.constantFrom('clamp', 'wrap', 'mirror', 'border', 'bounce'), fc.array(fc.constantFrom('clamp', 'wrap', 'x'), { maxLength: 4 }), jsonJunk), { nil: undefined }),
  filterMode: fc.option(fc.oneof(fc.constantFrom('point', 'linear', 'cubic'), jsonJunk), { nil: undefined }),
  borderColor: fc.option(fc.oneof(fc.array(fc.double(), { maxLength: 5 }), jsonJunk), { nil: undefined }),
}, { requiredKeys: [] });

export interface LaunchInput {
  readonly base: number;
  /** Top-level fields replacing the sample's own ('$KEEP' keeps it). */
  readonly fields: Record<string, unknown>;
  /** One field of one argument replaced. */
  readonly argEdit: { readonly index: number; readonly field: string; readonly value: unknown } | null;
}

const KEEP = '$KEEP';
const keepOr = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | string> => fc.oneof({ weight: 5, arbitrary: fc.constant(KEEP) }, { weight: 1, arbitrary: a });

export const launchInputs = (): fc.Arbitrary<LaunchInput> => fc.record({
  base: fc.nat({ max: bases().length - 1 }),
  fields: fc.record({
    kernel: keepOr(fc.oneof(fc.constantFrom('nope', ''), jsonJunk)),
    grid: keepOr(dims),
    block: keepOr(dims),
    sharedBytes: keepOr(fc.oneof(fc.integer({ min: 0, max: 4096 }), extremeInt, jsonJunk)),
    args: keepOr(fc.oneof(fc.array(arg, { maxLength: 5 }), jsonJunk)),
  }),
  argEdit: fc.option(fc.record({
    index: fc.nat({ max: 7 }),
    field: fc.constantFrom('type', 'count', 'file', 'value', 'name', 'extra'),
    value: fc.oneof(elemType, fileName, extremeInt, fc.double(), jsonJunk),
  }), { nil: null }),
});

let launchDir: string | undefined;
/** A directory with the files launch inputs name: a small file, a directory, a 64 MiB sparse file. */
function launchFiles(): string {
  if (launchDir) return launchDir;
  const d = tempDir('ptxdbg-fuzz-launch-');
  writeFileSync(join(d, 'in.bin'), new Uint8Array(64));
  mkdirSync(join(d, 'adir'));
  // sparse: the size says 64 MiB, the disk holds nothing
  writeFileSync(join(d, 'huge.bin'), '');
  truncateSync(join(d, 'huge.bin'), 64 << 20);
  launchDir = d;
  return d;
}

export function runLaunch(input: LaunchInput): Outcome {
  const b = bases();
  const base = b[input.base % b.length]!;
  const json: Record<string, unknown> = JSON.parse(JSON.stringify(base.launch)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(input.fields)) if (v !== KEEP) json[k] = v;
  const args = json['args'];
  if (input.argEdit && Array.isArray(args) && args.length) {
    const a = args[input.argEdit.index % args.length] as unknown;
    if (typeof a === 'object' && a !== null) (a as Record<string, unknown>)[input.argEdit.field] = input.argEdit.value;
  }
  if (Array.isArray(json['args'])) {
    for (const a of json['args'] as unknown[]) {
      if (typeof a !== 'object' || a === null) continue;
      const r = a as Record<string, unknown>;
      if (typeof r['file'] === 'string' && r['file'].startsWith('FUZZ/')) r['file'] = join(launchFiles(), r['file'].slice(5));
    }
  }
  try {
    const loaded = loadPtx(base.ptx, 'fuzz.ptx');
    let launch: Launch;
    try {
      launch = parseLaunch(json, loaded.program!, base.dir, 'fuzz.json');
    } catch (e) {
      if (e instanceof LaunchError) return { kind: 'rejected' };
      throw e;
    }
    return runProgram(loaded.program!, launch);
  } catch (e) {
    return internal(e);
  }
}

// ---- trace files ---------------------------------------------------------------------------------

interface Recorded { readonly path: string; readonly bytes: Uint8Array; readonly hashes: Map<number, string>; readonly total: number }
let recorded: Recorded | undefined;

/** Positions whose state a loaded trace must reproduce. */
const probes = (total: number): number[] => [0, 1, Math.floor(total / 3), Math.floor(total / 2), total];

function hashesAt(s: Session, total: number): Map<number, string> {
  const h = new Map<number, string>();
  for (const p of probes(total)) {
    s.goto(p);
    h.set(p, stateHash(s.trace.machine));
  }
  return h;
}

/** One recording of saxpy, written with the real writer; every trace input mutates its bytes. */
function original(): Recorded {
  if (recorded) return recorded;
  const dir = join(ROOT, 'samples', 'saxpy');
  const ptxPath = join(dir, 'kernel.G.ptx');
  const s = openSession({ ptxPath, launch: join(dir, 'launch.json'), interval: 64 });
  const d = tempDir('ptxdbg-fuzz-trace-');
  const path = join(d, 'orig.ptxtrace');
  writeTraceFile(path, s.trace, ptxPath, readFileSync(ptxPath, 'utf8'), s.launch, { schedule: 'rr', seed: 1, maxSteps: s.total + 1 });
  recorded = { path, bytes: new Uint8Array(readFileSync(path)), hashes: hashesAt(s, s.total), total: s.total };
  return recorded;
}

export const traceInputs = (): fc.Arbitrary<BytePlan> => bytePlan;

/** Where runTrace writes each mutated trace (one file, rewritten per input; removed at exit). */
let scratch: string | undefined;

export function runTrace(p: BytePlan): Outcome {
  try {
    const o = original();
    let bytes = applyByteOps(o.bytes, p.ops);
    if (p.reseal && bytes.length > 32) {
      const body = bytes.subarray(0, bytes.length - 32);
      const sealed = new Uint8Array(bytes.length);
      sealed.set(body);
      sealed.set(createHash('sha256').update(body).digest(), body.length);
      bytes = sealed;
    }
    const path = join(scratch ??= tempDir('ptxdbg-fuzz-scratch-'), 'mutated.ptxtrace');
    writeFileSync(path, bytes);
    const r = openReplay(path);
    if ('error' in r) return { kind: 'rejected' };
    // loaded: it must show exactly the recorded run
    if (r.session.total !== o.total) return { kind: 'differs', detail: `total ${r.session.total} vs ${o.total}` };
    const got = hashesAt(r.session, o.total);
    for (const [pos, h] of o.hashes) if (got.get(pos) !== h) return { kind: 'differs', detail: `state at step ${pos} differs` };
    return { kind: 'accepted' };
  } catch (e) {
    return internal(e);
  }
}

// ---- debugger commands ---------------------------------------------------------------------------

const argWord = fc.oneof(
  fc.constantFrom('1', '0', '-1', '99999999999', '+5', '-5', 'end', 'start', 'kernel.cu:15', 'kernel.cu:0', 'ptx:40', '*3', 'axpy', 'saxpy',
    'i', 'xi', 'yi', 'a', 'x[0]', 'y[i]', '*x', '&i', '$r1', '$pc', 'threadIdx.x', 'blockIdx.x', '@shared', '@global', '0x10', '0x7f0000000100',
    'if', '==', '&&', '(', ')', '[', ']', '(1,0,0)', '(0,0,0)', 'block', 'thread', 'warp', 'lane', '/x', '/20x', 'locals', 'args', 'registers', 'races',
    'breakpoints', 'threads', 'warps', 'lanes', 'frame', 'line', '"str"', "'c'", '1.5e308', '(float)', 'sizeof', '->', '.', '::', '%',
    '^1', '^2', '^9', '/lanes', '/block', '/i', '/s', '/2i', '-l', '2,5', ',4', 'cuda', 'kernels', 'blocks', 'display', '%', '>=2', 'ax'),
  fc.string({ maxLength: 8 }),
  fc.integer().map(String),
);

export const commandInputs = (): fc.Arbitrary<string[]> => fc.array(
  fc.tuple(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...COMMAND_NAMES) }, fc.string({ maxLength: 6 })), fc.array(argWord, { maxLength: 5 }))
    .map(([c, a]) => [c, ...a].join(' ')),
  { minLength: 1, maxLength: 6 },
);

let commandSession: { s: Session; uses: number } | undefined;

export function runCommands(lines: readonly string[]): Outcome {
  try {
    // a session is reused for a while (opening one records the launch); state carries over, which
    // only widens what the commands meet
    if (!commandSession || commandSession.uses > 200) {
      const dir = join(ROOT, 'samples', 'saxpy');
      commandSession = { s: openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') }), uses: 0 };
    }
    commandSession.uses++;
    for (const line of lines) {
      const r = executeCommand(engineOf(commandSession.s), line);
      if (looksInternal(r.output)) return { kind: 'internal', detail: `${line}: ${r.output}` };
    }
    return { kind: 'accepted' };
  } catch (e) {
    return internal(e);
  }
}

// ---- dispatch ------------------------------------------------------------------------------------

export function arbitraryFor(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'ptx': return ptxInputs();
    case 'dwarf': return dwarfInputs();
    case 'launch': return launchInputs();
    case 'trace': return traceInputs();
    case 'commands': return commandInputs();
    case 'wire': return wireInputs();
  }
}

/** An input's outcome (the wire kind's comes asynchronously: its server is a stream). */
export function runInput(kind: Kind, input: unknown): Outcome | Promise<Outcome> {
  switch (kind) {
    case 'ptx': return runPtx(input as TextPlan);
    case 'dwarf': return runDwarf(input as DwarfPlan);
    case 'launch': return runLaunch(input as LaunchInput);
    case 'trace': return runTrace(input as BytePlan);
    case 'commands': return runCommands(input as string[]);
    case 'wire': return runWire(input as WireInput);
  }
}
