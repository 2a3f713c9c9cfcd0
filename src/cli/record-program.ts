/**
 * A whole CUDA program recorded without a terminal, for the DAP front end (a launch
 * configuration `"program": "./app"` with `args`, `cwd`, `env`): the program runs once on the
 * replacement runtime with its stdio kept away from this process's (DAP speaks on them), every
 * launch recorded (or those `record` names), and the engine opens on the recording. `ptxdbg
 * ./app` in a terminal is src/cli/program.ts; this is the same recording with another frame.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Engine, EngineError, openProgramEngine } from '../engine/index.js';
import { DEFAULT_RUN_OPTIONS } from '../exec/machine.js';
import { Device } from '../host/device.js';
import { ProgramLaunches, recordingProgressLine, runProgram } from '../host/program.js';
import { programSource } from '../host/program-source.js';
import type { ProgramRun } from '../frontends/dap/adapter.js';
import { EXEC_MAX_STEPS, runtimeDir } from './exec.js';
import { DEFAULT_RECORD_BUDGET, hostLineLookup } from './program.js';
import { threadCount, threadsLine } from './threads.js';

/** Run `run.program` under the recorder and open the engine on the whole program; EngineError when it cannot. */
export async function recordProgram(run: ProgramRun): Promise<Engine> {
  const lib = runtimeDir();
  if (!existsSync(join(lib, 'libcudart.so.13'))) throw new EngineError(`the ptxdbg CUDA runtime is not built (${join(lib, 'libcudart.so.13')}): run npm run build with CUDA_HOME set`, 'bad-launch');
  const device = new Device();
  let progress = 0;
  const launches = new ProgramLaunches(device, {
    opts: { ...DEFAULT_RUN_OPTIONS, schedule: run.schedule ?? 'rr', seed: run.seed ?? 1, maxSteps: run.maxSteps ?? EXEC_MAX_STEPS },
    threads: threadCount(undefined), stats: false, races: false, breaks: [], breakOnFault: false, capture: undefined, sanitize: undefined,
    record: {
      kernels: run.record, budget: DEFAULT_RECORD_BUDGET, lines: hostLineLookup(),
      // a line now and then, not one per launch (a program may make thousands)
      onProgress: (p) => { if (p.launches >= progress) { progress = Math.max(progress * 2, 100); run.say(recordingProgressLine(p)); } },
    },
    say: run.say, threadsLine, openDebugger: () => Promise.reject(new EngineError('no debugger opens inside a recording', 'bad-request')),
  }, run.program, run.args);
  const ended = await runProgram([run.program, ...run.args], lib, device, launches, { sanitize: false, captureOutput: true, detached: true, cwd: run.cwd, env: run.env });
  if ('notStarted' in ended) throw new EngineError(`cannot run ${run.program}: ${ended.notStarted}`, 'bad-launch');
  return openProgramEngine(programSource(launches.recording!), { schedule: run.schedule, seed: run.seed, maxSteps: run.maxSteps });
}
