#!/usr/bin/env node
/** The `ptxdbg` command line (yargs). Each subcommand lives in src/cli/. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { checkCommand } from './cli/check.js';
import { UsageError } from './cli/common.js';
import { infoCommand } from './cli/info.js';
import { runCommand } from './cli/run.js';
import { dwarfCommand } from '../dwarf/index.js';

function version(): string {
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    for (const p of [join(here, '..', '..', 'package.json'), join(here, '..', 'package.json')]) {
      try {
        return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
      } catch { /* try next */ }
    }
  } catch { /* fall through */ }
  return 'unknown';
}

function guard(fn: () => number): void {
  try {
    process.exitCode = fn();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ptxdbg: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ptxdbg: internal error: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 70;
  }
}

const launchOptions = {
  launch: { type: 'string', describe: 'launch file (JSON, see README); default: <name>.launch.json or launch.json next to the PTX' },
  kernel: { type: 'string', describe: 'entry to launch when no launch file is used (default: the first)' },
  grid: { type: 'string', describe: 'grid size, e.g. 4 or 4x2 (without a launch file)' },
  block: { type: 'string', describe: 'block size, e.g. 256 or 16x16 (without a launch file)' },
  shared: { type: 'number', describe: 'dynamic shared memory bytes (without a launch file)' },
  arg: { type: 'string', array: true, describe: 'kernel argument: type:value, type[count] or type[count]@file (repeat per parameter)' },
} as const;

await yargs(hideBin(process.argv))
  .scriptName('ptxdbg')
  .usage('$0 <command> [options]\n\nTime-travel debugger for NVIDIA PTX kernels.')
  .command('$0 <file>', 'open the debugger on a kernel (until the TUI lands: run it and print its buffers)', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .options(launchOptions),
    (a) => guard(() => runCommand(a.file, {
      launch: a.launch, kernel: a.kernel, grid: a.grid, block: a.block, shared: a.shared, arg: a.arg as string[] | undefined, print: true, stats: true,
    })))
  .command('check <files..>', 'parse and resolve PTX; print located diagnostics', (y) => y.positional('files', { type: 'string', array: true, demandOption: true }),
    (a) => guard(() => checkCommand(a.files as string[])))
  .command('info <file>', 'summarise a PTX module (entries, params, variables, debug info)', (y) => y.positional('file', { type: 'string', demandOption: true }).option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }),
    (a) => guard(() => infoCommand(a.file, a.json)))
  .command('run <file>', 'run a launch; write buffers to --out, printf output to stdout', (y) => y
    .positional('file', { type: 'string', demandOption: true })
    .options(launchOptions)
    .option('out', { type: 'string', describe: 'directory for <buffer>.bin outputs and stdout.txt' })
    .option('stats', { type: 'boolean', default: false, describe: 'print warp-steps, thread-instructions and speed to stderr' })
    .option('print', { type: 'boolean', default: false, describe: 'print the first elements of every buffer to stderr' })
    .option('schedule', { choices: ['rr', 'random'] as const, default: 'rr' as const, describe: 'warp scheduling policy' })
    .option('seed', { type: 'number', default: 1, describe: 'seed for --schedule random' })
    .option('max-steps', { type: 'number', describe: 'stop after this many warp-steps (default 200000000)' }),
    (a) => guard(() => runCommand(a.file, {
      launch: a.launch, kernel: a.kernel, grid: a.grid, block: a.block, shared: a.shared, arg: a.arg as string[] | undefined,
      out: a.out, stats: a.stats, print: a.print, schedule: a.schedule, seed: a.seed, maxSteps: a['max-steps'],
    })))
  .command('dwarf <file>', 'print the DWARF DIE tree of a -G PTX file (llvm-dwarfdump style)', (y) => y.positional('file', { type: 'string', demandOption: true }),
    (a) => guard(() => {
      const r = dwarfCommand(a.file);
      process.stdout.write(r.text.endsWith('\n') ? r.text : r.text + '\n');
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
      return 0;
    }))
  .strict()
  .version(version())
  .help()
  .fail((msg, err, y) => {
    if (err) throw err;
    process.stderr.write(`${y.help() && ''}ptxdbg: ${msg}\nRun 'ptxdbg --help' for usage.\n`);
    process.exit(2);
  })
  .parseAsync();
