/**
 * Entry point of the terminal UI: `runTui` takes over the terminal (alternate screen, raw
 * input), runs until the user quits, restores the terminal on every path and returns the exit
 * code (0 quit, 1 could-not-open screen, 2 not a terminal, 70 internal error, 130 Ctrl-C).
 */
import type { CommandConsole, Engine } from '#engine';
import { enterFullScreen } from './terminal.js';

export interface RunTuiOptions {
  /**
   * The recorded run to debug, and the console of its `:` line: the gdb language, handed over
   * by the caller (src/cli/tui-console.ts) so that tui/ imports no other front end.
   */
  engine?: Engine;
  console?: CommandConsole;
  /** Shown instead of the debugger (bad PTX, bad launch), with q to quit. */
  error?: string;
  /** What is being debugged (the PTX file), for the header. */
  title: string;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Extra directory to look for the CUDA sources in. */
  sourceDir?: string;
}

export async function runTui(opts: RunTuiOptions): Promise<number> {
  const stdout = opts.stdout ?? process.stdout;
  const stdin = opts.stdin ?? process.stdin;
  if (!stdout.isTTY || !stdin.isTTY) {
    process.stderr.write('ptxdbg: the debugger UI needs a terminal (stdin and stdout must be a TTY)\n');
    return 2;
  }
  // Ink decides once, when first imported, whether it runs "in CI" (then it prints only the
  // final frame): on a terminal that is never what we want. React's development build is
  // several times slower per frame: use the production one unless told otherwise.
  delete process.env['CI'];
  delete process.env['CONTINUOUS_INTEGRATION'];
  process.env['NODE_ENV'] ??= 'production';
  const { mount } = await import('./mount.js');

  const guard = enterFullScreen(stdout, stdin);
  try {
    return await mount({ engine: opts.engine, console: opts.console, error: opts.error, title: opts.title, stdin, stdout, sourceDir: opts.sourceDir });
  } catch (e) {
    guard.restore();
    process.stderr.write(`ptxdbg: internal error in the UI: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    return 70;
  } finally {
    guard.restore();
    guard.dispose();
  }
}
