/**
 * A whole program recorded for the TUI tests: run once under the recorder (as `ptxdbg ./app`
 * does, through the same host layer), the engine opened on it and the gdb language as the
 * console of the `:` line, as the CLI hands them to the TUI.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CommandConsole, Engine } from '../../src/engine/index.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { recordProgram } from '../../src/cli/record-program.js';
import { runtimeDir } from '../../src/cli/exec.js';

/** Why a program cannot be recorded here (the runtime is not built), or null. */
export function runtimeMissing(): string | null {
  const lib = join(runtimeDir(), 'libcudart.so.13');
  return existsSync(lib) ? null : `the ptxdbg runtime is not built (${lib})`;
}

export async function openProgramForTest(app: string, args: readonly string[] = []): Promise<{ engine: Engine; console: CommandConsole }> {
  const engine = await recordProgram({ program: app, args, cwd: dirname(app), env: undefined, record: undefined, schedule: undefined, seed: undefined, maxSteps: undefined, say: () => undefined });
  return { engine, console: consoleOf(engine) };
}
