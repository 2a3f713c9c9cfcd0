#!/usr/bin/env node
/** The `ptxdbg` command line (yargs). Each subcommand lives in src/cli/. */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { readPtxText, UsageError } from './cli/common.js';
import { packageVersion } from './cli/package.js';
import { ptxInput } from './cli/cuda.js';
import type { DebugOptions } from './cli/debug.js';
// Each subcommand's module is imported when it runs: a small `run` does not load the debugger,
// the race checker or the DWARF reader (whole-process time is part of the product's speed).
const checkCommand = async (...a: Parameters<typeof import('./cli/check.js').checkCommand>) => (await import('./cli/check.js')).checkCommand(...a);
const infoCommand = async (...a: Parameters<typeof import('./cli/info.js').infoCommand>) => (await import('./cli/info.js')).infoCommand(...a);
const runCommand = async (...a: Parameters<typeof import('./cli/run.js').runCommand>) => (await import('./cli/run.js')).runCommand(...a);
const racesCommand = async (...a: Parameters<typeof import('./cli/races.js').racesCommand>) => (await import('./cli/races.js')).racesCommand(...a);
const debugCommand = async (...a: Parameters<typeof import('./cli/debug.js').debugCommand>) => (await import('./cli/debug.js')).debugCommand(...a);
const recordCommand = async (...a: Parameters<typeof import('./cli/debug.js').recordCommand>) => (await import('./cli/debug.js')).recordCommand(...a);
const replayCommand = async (...a: Parameters<typeof import('./cli/debug.js').replayCommand>) => (await import('./cli/debug.js')).replayCommand(...a);

function version(): string {
  return packageVersion();
}

/** Run a subcommand: its result is the exit code; usage errors exit 2, anything else 70 with a trace. */
async function guard(fn: () => number | Promise<number>): Promise<void> {
  try {
    process.exitCode = await fn();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ptxdbg: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ptxdbg: internal error: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 70;
    // what the failed command left open (a program waiting on its runtime, a server, workers)
    // must not keep ptxdbg alive: exit soon after, unless nothing holds the event loop anyway
    setTimeout(() => process.exit(70), 200).unref();
  }
}

// A reader that stops early (`| head`) ends ptxdbg as SIGPIPE ends a C tool (compute-sanitizer's
// records, a program's output): quietly, with 128 + SIGPIPE, instead of an unhandled EPIPE trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(128 + 13);
});

const debugOptions = {
  batch: { type: 'boolean', default: false, describe: 'no UI: run the -x/--ex commands and print their output (like gdb -batch)' },
  x: { type: 'string', array: true, describe: 'read debugger commands from this file (repeatable)' },
  ex: { type: 'string', array: true, describe: 'run this debugger command (repeatable), e.g. --ex "break kernel.cu:12" --ex continue' },
  schedule: { choices: ['rr', 'random'] as const, default: 'rr' as const, describe: 'warp scheduling policy' },
  seed: { type: 'number', default: 1, describe: 'seed for --schedule random' },
  'max-steps': { type: 'number', describe: 'stop recording after this many warp-steps (default 50000000)' },
  'source-dir': { type: 'string', describe: 'directory holding the CUDA sources named by .file' },
  arch: { type: 'string', default: 'sm_80', describe: 'GPU architecture for compiling a .cu file with nvcc' },
} as const;

function debugOpts(a: Record<string, unknown>): DebugOptions {
  return {
    launch: a['launch'] as string | undefined, kernel: a['kernel'] as string | undefined, grid: a['grid'] as string | undefined,
    block: a['block'] as string | undefined, shared: a['shared'] as number | undefined, arg: a['arg'] as string[] | undefined,
    batch: a['batch'] as boolean, commandFiles: a['x'] as string[] | undefined, ex: a['ex'] as string[] | undefined,
    schedule: a['schedule'] as 'rr' | 'random', seed: a['seed'] as number, maxSteps: a['max-steps'] as number | undefined,
    sourceDir: a['source-dir'] as string | undefined, arch: a['arch'] as string, link: a['link'] as string[] | undefined,
  };
}

/**
 * --workers: threads that run a launch's independent CTAs (`run`: one by default; `exec`: one per
 * core for a plain run, one under the checking tools, --races and recording); `auto` asks idle
 * cores in once enough of a launch is left to gain (src/exec/parallel/auto.ts). Launches that need one
 * ordered machine stay on one thread.
 */
const workersOption = {
  type: 'string',
  describe: 'run independent CTAs on N threads (auto: idle cores join a launch once a second or more of its work is left; exec\'s default, run\'s is 1); launches with printf, malloc or grid sync stay on one',
} as const;

/** The --workers value, or a usage error (exit 2) that says what it takes. */
function workersOf(v: unknown): number | 'auto' | undefined {
  if (v === undefined || v === 'auto') return v;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--workers takes a thread count from 1 to 256 or 'auto', not '${String(v)}'`);
  return n;
}

/** Further PTX files linked with the first into one program (-rdc code). */
const linkPositional = { type: 'string', array: true, describe: 'more PTX files to link with the first (nvcc -rdc=true code)' } as const;

const launchOptions = {
  launch: { type: 'string', describe: 'launch file (JSON, see README); default: <name>.launch.json or launch.json next to the PTX' },
  kernel: { type: 'string', describe: 'entry to launch when no launch file is used (default: the first)' },
  grid: { type: 'string', describe: 'grid size, e.g. 4 or 4x2 (without a launch file)' },
  block: { type: 'string', describe: 'block size, e.g. 256 or 16x16 (without a launch file)' },
  shared: { type: 'number', describe: 'dynamic shared memory bytes (without a launch file)' },
  arg: { type: 'string', array: true, describe: 'kernel argument: type:value, type[count] or type[count]@file (repeat per parameter)' },
} as const;

const execOptions = {
  schedule: { choices: ['rr', 'random'] as const, default: 'rr' as const, describe: 'warp scheduling policy' },
  seed: { type: 'number', default: 1, describe: 'seed for --schedule random' },
  'max-steps': { type: 'number', describe: 'stop a launch after this many warp-steps (default 2000000000)' },
  ex: { type: 'string', array: true, describe: 'debugger command for the launch the debugger opens on (repeatable)' },
  batch: { type: 'boolean', default: false, describe: 'the debugger runs the --ex commands without a UI' },
  workers: workersOption,
  'device-memory': { type: 'string', describe: 'the device\'s memory: bytes, or with K, M or G (powers of 1024); default 40G (an A100\'s), at most 80G; what cudaMemGetInfo and totalGlobalMem report, committed in host memory only where the program touches it' },
} as const;

/** compute-sanitizer's options, with its defaults (README: Whole programs). */
const sanitizeOptions = {
  'print-limit': { type: 'number', default: 100, describe: 'print at most N error records (0: all); the summary counts every one' },
  'error-exitcode': { type: 'number', default: 0, describe: 'exit with N when the program exits 0 but errors were found' },
  'kernel-name': { type: 'string', array: true, describe: 'check only kernels matching a filter: kne=MANGLED, kns=SUBSTRING or regex=RE (repeatable: any)' },
  'kernel-name-exclude': { type: 'string', array: true, describe: 'do not check kernels matching this filter (repeatable)' },
  'launch-skip': { alias: 's', type: 'number', default: 0, describe: 'skip the first N launches that pass the filters' },
  'launch-count': { alias: 'c', type: 'number', default: 0, describe: 'check N launches after the skipped ones (0: all)' },
  'log-file': { type: 'string', describe: 'write the report to this file instead of stdout (%p: pid, %q{VAR}, %%)' },
  save: { type: 'string', describe: 'also write the report to this file (plain text)' },
  'print-level': { choices: ['info', 'auto', 'warn', 'error', 'fatal'] as const, default: 'auto' as const, describe: 'lowest severity printed (auto: warn)' },
  'leak-check': { choices: ['full', 'no'] as const, default: 'no' as const, describe: 'memcheck: report cudaMalloc memory not freed when the context goes' },
  'racecheck-report': { choices: ['hazard', 'analysis', 'all'] as const, default: 'analysis' as const, describe: 'racecheck: per-hazard records, analysis records, or both' },
  'destroy-on-device-error': { choices: ['context', 'kernel'] as const, default: 'context' as const, describe: 'a memory error ends the context (later calls fail) or only the kernel' },
  'check-api-memory-access': { choices: ['yes', 'no'] as const, default: 'yes' as const, describe: 'accepted for compatibility: copies and memsets are always checked' },
} as const;

async function sanitizeOpts(a: Record<string, unknown>): Promise<import('./host/sanitizer.js').SanitizeOptions> {
  const { parseFilter, FilterError } = await import('./host/sanitizer.js');
  const count = (name: string): number => {
    const v = a[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new UsageError(`--${name} takes a whole number from 0, not '${String(v)}'`);
    return v;
  };
  // a malformed filter is ignored, as compute-sanitizer documents; ptxdbg says so
  const filters = (name: string): import('./host/sanitizer.js').KernelFilter[] => ((a[name] as string[] | undefined) ?? []).flatMap((spec) => {
    try { return parseFilter(String(spec)); } catch (e) {
      if (!(e instanceof FilterError)) throw e;
      process.stderr.write(`ptxdbg: --${name} ${String(spec)}: ${e.message}; the filter is ignored\n`);
      return [];
    }
  });
  const level = a['print-level'] as string;
  return {
    tool: a['tool'] as import('./host/sanitizer.js').SanitizeTool,
    printLimit: count('print-limit'), errorExitcode: count('error-exitcode'), launchSkip: count('launch-skip'), launchCount: count('launch-count'),
    kernelName: filters('kernel-name'), kernelNameExclude: filters('kernel-name-exclude'),
    logFile: a['log-file'] as string | undefined, save: a['save'] as string | undefined,
    printLevel: level === 'auto' ? 'warn' : level as 'info' | 'warn' | 'error' | 'fatal',
    leakCheck: a['leak-check'] === 'full', racecheckReport: a['racecheck-report'] as 'hazard' | 'analysis' | 'all',
    destroyOnDeviceError: a['destroy-on-device-error'] as 'context' | 'kernel', checkApiMemoryAccess: a['check-api-memory-access'] === 'yes',
  };
}

function execOpts(a: Record<string, unknown>): import('./cli/exec.js').ExecOptions {
  return { schedule: a['schedule'] as 'rr' | 'random', seed: a['seed'] as number, maxSteps: a['max-steps'] as number | undefined, ex: a['ex'] as string[] | undefined, batch: a['batch'] as boolean, workers: workersOf(a['workers']), deviceMemory: a['device-memory'] as string | undefined };
}

/** The program and its arguments: what follows `--` (or the positionals before it). */
function programOf(a: Record<string, unknown>): string[] {
  return [...((a['program'] as string[] | undefined) ?? []), ...((a['--'] as string[] | undefined) ?? [])].map(String);
}

/**
 * yargs renders a command's whole help text as soon as its handler has started, to keep in case
 * the handler fails later (yargs command.js); the `.fail` below never shows it, so that work (about
 * a quarter of a small `ptxdbg run`'s own time) is skipped. `--help` still renders it.
 */
function noHelpCache(y: Argv): Argv {
  const inner = (y as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.();
  const usage = inner?.getUsageInstance?.();
  if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => undefined;
  return y;
}

await noHelpCache(yargs(hideBin(process.argv)))
  .scriptName('ptxdbg')
  .parserConfiguration({ 'populate--': true })
  .usage('$0 <command> [options]\n\nTime-travel debugger for NVIDIA PTX kernels.')
  .command('$0 <file> [link..]', 'open the debugger on a kernel (.ptx, or .cu compiled with nvcc -G); several .ptx files are linked', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .positional('link', linkPositional)
    .options(launchOptions)
    .options(debugOptions),
    // an executable where a .ptx would go: the whole program (issue #25), its arguments after it
    (a) => guard(async () => (await import('./cli/program.js')).isElf(a.file)
      ? (await import('./cli/program.js')).programDebugCommand([a.file, ...((a.link as string[] | undefined) ?? []), ...programOf(a)], debugOpts(a))
      : debugCommand(a.file, debugOpts(a))))
  .command('debug [program..]', 'record a whole CUDA program (built with nvcc -cudart shared) and debug every launch of it: ptxdbg debug [options] -- ./app [args]', (y) => y
    .positional('program', { type: 'string', array: true, describe: 'the program and its arguments (after --)' })
    .options(debugOptions)
    .option('record', { type: 'string', array: true, describe: 'record only these kernels\' launches (K1,K2); the others run, their memory effect one event' })
    .option('budget', { type: 'string', describe: 'memory the recording may hold (bytes, or with K, M or G; default 4G); later launches run unrecorded' })
    .option('workers', workersOption)
    .option('device-memory', execOptions['device-memory']),
    (a) => guard(async () => {
      const { programDebugCommand, parseBudget, parseRecordList } = await import('./cli/program.js');
      return programDebugCommand(programOf(a), {
        ...debugOpts(a), record: parseRecordList(a.record), budget: a.budget === undefined ? undefined : parseBudget(String(a.budget)),
        workers: workersOf(a.workers), deviceMemory: a['device-memory'] as string | undefined,
      });
    }))
  .command('record <file> [link..]', 'record a launch into a trace file', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .positional('link', linkPositional)
    .options(launchOptions)
    .option('o', { alias: 'output', type: 'string', demandOption: true, describe: 'trace file to write (.ptxtrace)' })
    .option('schedule', debugOptions.schedule)
    .option('seed', debugOptions.seed)
    .option('max-steps', debugOptions['max-steps'])
    .option('arch', debugOptions.arch),
    (a) => guard(() => recordCommand(a.file, a.o, debugOpts(a))))
  .command('replay <trace>', 'open the debugger on a recorded trace file', (y) => y
    .positional('trace', { type: 'string', demandOption: true })
    .option('batch', debugOptions.batch)
    .option('x', debugOptions.x)
    .option('ex', debugOptions.ex)
    .option('source-dir', debugOptions['source-dir']),
    (a) => guard(() => replayCommand(a.trace, debugOpts(a))))
  .command('extract <app>', 'list the device code nvcc embedded in a CUDA program; -o DIR writes its PTX for the debugger', (y) => y
    .positional('app', { type: 'string', demandOption: true })
    .option('o', { alias: 'output', type: 'string', describe: 'directory to write each PTX entry to (<app>.<n>.sm_<arch>.ptx)' }),
    (a) => guard(async () => (await import('./cli/extract.js')).extractCommand(a.app, a.o)))
  .command('exec [program..]', 'run a whole CUDA program (built with nvcc -cudart shared) on the CPU: ptxdbg exec [options] -- ./app [args]', (y) => y
    .positional('program', { type: 'string', array: true, describe: 'the program and its arguments (after --)' })
    .options(execOptions)
    .option('break', { type: 'string', array: true, describe: 'open the debugger at this launch: KERNEL or KERNEL#N (its Nth launch); the program waits' })
    .option('break-on-fault', { type: 'boolean', default: false, describe: 'open the debugger on a launch that faults' })
    .option('races', { type: 'boolean', default: false, describe: 'check every launch for data races and barrier errors' })
    .option('stats', { type: 'boolean', default: false, describe: 'print per-launch figures to stderr' }),
    (a) => guard(async () => (await import('./cli/exec.js')).execCommand(programOf(a), {
      ...execOpts(a), break: a.break as string[] | undefined, breakOnFault: a['break-on-fault'], races: a.races, stats: a.stats,
    })))
  .command('capture [program..]', 'run a whole CUDA program and write one self-contained bundle per launch (reopen with ptxdbg DIR/0001-kernel/)', (y) => y
    .positional('program', { type: 'string', array: true })
    .options(execOptions)
    .option('o', { alias: 'output', type: 'string', demandOption: true, describe: 'directory for the bundles' })
    .option('kernel', { type: 'string', describe: 'capture only launches of this kernel' }),
    (a) => guard(async () => (await import('./cli/exec.js')).execCommand(programOf(a), { ...execOpts(a), capture: { dir: a.o, kernel: a.kernel } })))
  .command('sanitize [program..]', 'run a whole CUDA program under a checker, reported as compute-sanitizer does', (y) => y
    .positional('program', { type: 'string', array: true })
    .options(execOptions)
    .option('tool', { choices: ['memcheck', 'racecheck', 'synccheck', 'initcheck'] as const, default: 'memcheck' as const, describe: 'which checker' })
    .options(sanitizeOptions),
    (a) => guard(async () => (await import('./cli/exec.js')).execCommand(programOf(a), { ...execOpts(a), sanitize: await sanitizeOpts(a) })))
  .command('dap', 'serve the Debug Adapter Protocol (VS Code) on stdio, or on a TCP port', (y) => y
    .option('port', { type: 'number', describe: 'listen on this TCP port (127.0.0.1) instead of stdio' }),
    (a) => guard(async () => (await import('./frontends/dap/main.js')).runDap(a.port, (await import('./frontends/gdb/console.js')).consoleOf, (await import('./cli/record-program.js')).recordProgram)))
  .command('check <files..>', 'parse and resolve PTX (or .cu); print located diagnostics (--link: as one linked program)', (y) => y.positional('files', { type: 'string', array: true, demandOption: true })
    .option('link', { type: 'boolean', default: false, describe: 'link the files into one program (as nvlink does for -rdc code) and check that' })
    .option('arch', debugOptions.arch)
    .option('workers', { type: 'string', describe: 'check a large module\'s functions on N threads (auto, the default: one per core, up to 8, 4 MB of PTX each at least)' }),
    (a) => guard(() => checkCommand((a.files as string[]).map((f) => ptxInput(f, a.arch, {}).ptxPath), a.link, a.files as string[], workersOf(a.workers))))
  .command('info <file>', 'summarise a PTX module (entries, params, variables, debug info)', (y) => y.positional('file', { type: 'string', demandOption: true }).option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }).option('arch', debugOptions.arch),
    (a) => guard(() => infoCommand(ptxInput(a.file, a.arch, {}).ptxPath, a.json)))
  .command('run <file> [link..]', 'run a launch; write buffers to --out, printf output to stdout', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .positional('link', linkPositional)
    .options(launchOptions)
    .option('out', { type: 'string', describe: 'directory for <buffer>.bin outputs and stdout.txt' })
    .option('stats', { type: 'boolean', default: false, describe: 'print warp-steps, thread-instructions and speed to stderr' })
    .option('print', { type: 'boolean', default: false, describe: 'print the first elements of every buffer to stderr' })
    .option('schedule', { choices: ['rr', 'random'] as const, default: 'rr' as const, describe: 'warp scheduling policy' })
    .option('seed', { type: 'number', default: 1, describe: 'seed for --schedule random' })
    .option('max-steps', { type: 'number', describe: 'stop after this many warp-steps (default 200000000)' })
    .option('workers', workersOption)
    .option('arch', debugOptions.arch),
    (a) => guard(() => {
      const input = ptxInput(a.file, a.arch, { launch: a.launch, kernel: a.kernel, grid: a.grid, block: a.block, shared: a.shared, arg: a.arg as string[] | undefined });
      return runCommand(input.ptxPath, { ...input.flags, out: a.out, stats: a.stats, print: a.print, schedule: a.schedule, seed: a.seed, maxSteps: a['max-steps'], link: a.link as string[] | undefined, workers: workersOf(a.workers) });
    }))
  .command('races <file> [link..]', 'run a launch under the race checker: data races, benign races, barrier errors', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .positional('link', linkPositional)
    .options(launchOptions)
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable report (see README)' })
    .option('schedule', { choices: ['rr', 'random'] as const, default: 'rr' as const, describe: 'warp scheduling policy for a single run' })
    .option('seed', { type: 'number', default: 1, describe: 'seed for --schedule random; first seed for --schedules' })
    .option('schedules', { type: 'number', describe: 'rerun under N random schedules (seeds seed..seed+N-1) and merge the findings' })
    .option('max-steps', { type: 'number', describe: 'stop after this many warp-steps (default 200000000)' })
    .option('arch', debugOptions.arch),
    (a) => guard(() => {
      const input = ptxInput(a.file, a.arch, { launch: a.launch, kernel: a.kernel, grid: a.grid, block: a.block, shared: a.shared, arg: a.arg as string[] | undefined });
      return racesCommand(input.ptxPath, { ...input.flags, json: a.json, schedule: a.schedule, seed: a.seed, schedules: a.schedules, maxSteps: a['max-steps'], link: a.link as string[] | undefined });
    }))
  .command('dwarf <file>', 'print the DWARF DIE tree of a -G PTX file (llvm-dwarfdump style)', (y) => y.positional('file', { type: 'string', demandOption: true }).option('arch', debugOptions.arch),
    (a) => guard(async () => {
      const path = ptxInput(a.file, a.arch, {}).ptxPath;
      const { dwarfDump } = await import('./cli/dwarf.js');
      const r = dwarfDump(readPtxText(path), path);
      process.stdout.write(r.text.endsWith('\n') ? r.text : r.text + '\n');
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
      return 0;
    }))
  .strict()
  // the terminal's width (COLUMNS where output is not a terminal), not yargs's 80-column cap
  .wrap(process.stdout.columns || Number(process.env['COLUMNS']) || 80)
  .version(version())
  .help()
  .fail((msg, err, y) => {
    if (err) throw err;
    process.stderr.write(`${y.help() && ''}ptxdbg: ${msg}\nRun 'ptxdbg --help' for usage.\n`);
    process.exit(2);
  })
  .parseAsync();
