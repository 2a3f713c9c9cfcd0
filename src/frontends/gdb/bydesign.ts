/**
 * What a recording cannot do, by design (issue #27): gdb and cuda-gdb commands for live processes,
 * core files, remote targets and other GPUs, each answered with one line saying why.
 */
const BY_DESIGN: ReadonlyMap<string, string> = new Map([
  ['attach', 'ptxdbg debugs a recording of a launch, not a live process: there is nothing to attach to (record it with ptxdbg, then debug).'],
  ['detach', 'ptxdbg debugs a recording, not a live process: there is nothing to detach from.'],
  ['core-file', 'ptxdbg has no core files: the recording itself holds every state (ptxdbg record writes one, ptxdbg replay opens it).'],
  ['core', 'ptxdbg has no core files: the recording itself holds every state (ptxdbg record writes one, ptxdbg replay opens it).'],
  ['gcore', 'ptxdbg writes no core files: ptxdbg record saves the whole recording instead.'],
  ['generate-core-file', 'ptxdbg writes no core files: ptxdbg record saves the whole recording instead.'],
  ['target', 'ptxdbg has no remote or native targets: it debugs one recorded launch on the simulated GPU.'],
  ['kill', 'The recording cannot be killed: it is already complete (quit leaves ptxdbg).'],
  ['signal', 'ptxdbg cannot deliver signals: the recording is complete and replays as it ran.'],
  ['jump', 'jump would change the recorded execution; travel with goto STEP instead.'],
  ['record', 'ptxdbg always records the whole launch before you debug it: reverse commands work everywhere.'],
  ['inferior', 'ptxdbg debugs one recorded launch: there is one inferior.'],
  ['add-inferior', 'ptxdbg debugs one recorded launch: there is one inferior.'],
]);

/** The one-line reason for a command ptxdbg does not have by design, or undefined. */
export function byDesign(name: string, args: string): string | undefined {
  if (name === 'cuda' && /^\s*(?:device|sm)\s+[1-9]/.test(args)) return 'ptxdbg simulates one GPU: device 0 is the only device, sm 0 the only SM of its schedule.';
  if (name === 'info' && /^\s*(?:inferiors|checkpoints?)\b/.test(args)) return undefined;
  if (name === 'info' && /^\s*(?:sharedlibrary|dll|signals|handle|proc|auxv|os)\b/.test(args)) return `info ${args.trim().split(/\s+/)[0]}: ptxdbg debugs a recorded kernel launch, not a process: there are no ${args.trim().split(/\s+/)[0]}.`;
  return BY_DESIGN.get(name);
}
