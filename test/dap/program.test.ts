/**
 * DAP on a whole CUDA program (issue #25), driven as VS Code drives it: a real `ptxdbg dap`
 * process, a launch configuration `"program": "./offbyone"` with `cwd`, `args` and `env`.
 * samples/apps/timeline/offbyone.cu is built here with nvcc -g. Expected values come from its
 * source: launch 2 is scale (b[i] = 2·a[i]), launch 3 is finish (out[i] = b[i] + 1), prefix
 * leaves a[i] = i(i+1)/2, so at the end of launch 2 b[i] = i(i+1) (b[3] = 12) and n = 8.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from '../host/nvcc.js';

const DIR = join(ROOT, 'samples', 'apps', 'timeline');
const LIB = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const why = existsSync(join(ROOT, 'dist', 'src', 'cli.js')) ? missingTool('nvcc') ?? (existsSync(LIB) ? null : `the ptxdbg runtime is not built (${LIB})`) : 'dist/src/cli.js is missing: run `npm run build` first';
const LONG = 240_000;

/** The 1-based line of offbyone.cu holding `text` (exactly one). */
function lineOf(text: string): number {
  const lines = readFileSync(join(DIR, 'offbyone.cu'), 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (at.length !== 1) throw new Error(`offbyone.cu: ${at.length} lines hold ${text}`);
  return at[0]!;
}

let bin: string | undefined;
let dc: DebugClient | undefined;

beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-dap-program-'));
  const err = await nvccBuild(join(DIR, 'offbyone.cu'), join(bin, 'offbyone'), ['-g', '-G']); // -G: the kernels' lines and variables
  if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
}, 600_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });
afterEach(async () => {
  if (dc) await dc.stop().catch(() => undefined);
  dc = undefined;
});

async function move(c: DebugClient, req: () => Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
  const stopped = c.waitForEvent('stopped', LONG);
  await req();
  return (await stopped) as DebugProtocol.StoppedEvent;
}

async function top(c: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  return (await c.stackTraceRequest({ threadId })).body.stackFrames[0]!;
}

testIf(why)('a whole program: breakpoints in two kernels, continue and reverse-continue across launches, stepBack over a launch boundary, variables of the earlier launch', async () => {
  const c = (dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true }));
  c.defaultTimeout = LONG;
  await c.start();
  await c.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  const output: string[] = [];
  c.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));

  // the program runs under the recorder at launch, found from its cwd
  await Promise.all([
    c.waitForEvent('initialized', LONG),
    c.launchRequest({ program: './offbyone', args: [], cwd: bin!, env: { PTXDBG_TEST: '1' }, stopOnEntry: false } as DebugProtocol.LaunchRequestArguments),
  ]);
  const scaleLine = lineOf('if (i < n) b[i] = 2 * a[i]');
  const finishLine = lineOf('if (i < n) out[i] = b[i] + 1');
  const bps = await c.setBreakpointsRequest({ source: { path: join(DIR, 'offbyone.cu') }, breakpoints: [{ line: scaleLine }, { line: finishLine }] });
  // set in the program, pending while launch 1 (prefix) is in focus: kept (an id each), hit later
  expect(bps.body.breakpoints.map((b) => b.id !== undefined)).toEqual([true, true]);
  await c.setExceptionBreakpointsRequest({ filters: ['faults'] });
  const first = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest();

  // run: the first stop is scale's line in launch 2 (prefix, launch 1, has no breakpoint)
  let s = await first;
  expect(s.body.reason).toBe('breakpoint');
  const tid = s.body.threadId!;
  let f = await top(c, tid);
  // named with its parameter types (offbyone.cu: scale(const int *a, int *b, int n)) and its launch
  expect(f.name).toBe('scale(const int *, int *, int) [launch 2]');
  expect(f.line).toBe(scaleLine);

  // scale<<<2, 4>>> has two blocks of one warp: continue stops at the second warp, still in launch 2
  s = await move(c, () => c.continueRequest({ threadId: tid }));
  const threadName = async (id: number): Promise<string | undefined> => (await c.threadsRequest()).body.threads.find((t) => t.id === id)?.name;
  expect(await threadName(s.body.threadId!)).toBe('block (1,0,0) thread (0,0,0)');
  expect((await top(c, s.body.threadId!)).name).toBe('scale(const int *, int *, int) [launch 2]');

  // continue: finish's line in launch 3
  s = await move(c, () => c.continueRequest({ threadId: s.body.threadId! }));
  expect(s.body.reason).toBe('breakpoint');
  f = await top(c, s.body.threadId!);
  expect(f.name).toBe('finish(const int *, int *, int) [launch 3]');
  expect(f.line).toBe(finishLine);

  // reverse-continue: back over the boundary to scale's line in launch 2
  s = await move(c, () => c.reverseContinueRequest({ threadId: s.body.threadId! }));
  f = await top(c, s.body.threadId!);
  expect(f.name).toMatch(/scale.*\[launch 2\]$/);
  expect(f.line).toBe(scaleLine);

  // to the first step of launch 3 (the Debug Console's gdb language), then stepBack: into launch 2's end
  s = await move(c, () => c.evaluateRequest({ expression: '-exec launch 3', context: 'repl' }));
  f = await top(c, s.body.threadId!);
  expect(f.name).toMatch(/\[launch 3\]$/);
  s = await move(c, () => c.stepBackRequest({ threadId: s.body.threadId! }));
  f = await top(c, s.body.threadId!);
  expect(f.name).toMatch(/scale.*\[launch 2\]$/);
  expect(f.source?.name).toBe('offbyone.cu');

  // variables of the earlier launch: scale's parameter n = 8, and b as launch 2 left it (b[i] = i(i+1))
  const scopes = (await c.scopesRequest({ frameId: f.id })).body.scopes;
  const params = (await c.variablesRequest({ variablesReference: scopes.find((x) => x.name === 'Params')!.variablesReference })).body.variables;
  expect(params.find((v) => v.name === 'n')?.value).toBe('8');
  const ev = async (e: string): Promise<string> => (await c.evaluateRequest({ expression: e, context: 'watch', frameId: f.id })).body.result;
  expect(await ev('b[3]')).toBe('12');
  expect(await ev('a[3]')).toBe('6');

  // the program's output arrived once execution passed it... it prints after its last launch, which
  // this session has not passed going forward; the recording line came at launch
  expect(output.join('')).toMatch(/recorded offbyone: 3 launches, 3 recorded; the program exited with code 1/);
}, 600_000);

/** Start the adapter on offbyone (from its cwd), the events of `kinds` logged in arrival order. */
async function launchOffbyone(stopOnEntry: boolean, log: { event: string; body: unknown }[], kinds: readonly string[]): Promise<DebugClient> {
  const c = (dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true }));
  c.defaultTimeout = LONG;
  await c.start();
  for (const k of kinds) c.on(k, (e: DebugProtocol.Event) => log.push({ event: k, body: e.body }));
  await c.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await Promise.all([
    c.waitForEvent('initialized', LONG),
    c.launchRequest({ program: './offbyone', cwd: bin!, stopOnEntry } as DebugProtocol.LaunchRequestArguments),
  ]);
  return c;
}

testIf(why)('pending breakpoints as gdb-based adapters show them: unverified with the reason at set time, a `changed` event (verified, the line) when a launch with the code is reached, verified at once once one was', async () => {
  const log: { event: string; body: unknown }[] = [];
  const c = await launchOffbyone(true, log, ['breakpoint', 'stopped']);
  const scaleLine = lineOf('if (i < n) b[i] = 2 * a[i]');
  const finishLine = lineOf('if (i < n) out[i] = b[i] + 1');
  const source = { path: join(DIR, 'offbyone.cu') };
  // launch 1 (prefix) is in focus and no other launch was reached: both are pending, named by their kernel
  let bps = (await c.setBreakpointsRequest({ source, breakpoints: [{ line: scaleLine }, { line: finishLine }] })).body.breakpoints;
  expect(bps.map((b) => [b.verified, b.message])).toEqual([[false, 'pending: no launch of scale reached yet'], [false, 'pending: no launch of finish reached yet']]);
  const [scaleId, finishId] = bps.map((b) => b.id!);
  const fnBps = (await c.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'finish' }] })).body.breakpoints;
  expect(fnBps.map((b) => [b.verified, b.message])).toEqual([[false, 'pending: no launch of finish reached yet']]);
  const entry = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest();
  const tid = (await entry).body.threadId!;
  expect(log.filter((e) => e.event === 'breakpoint')).toEqual([]);

  // continue into launch 2: scale's breakpoint is resolved there, said before the stop at it
  log.length = 0;
  let s = await move(c, () => c.continueRequest({ threadId: tid }));
  expect(s.body.hitBreakpointIds).toEqual([scaleId]);
  expect(log.map((e) => e.event)).toEqual(['breakpoint', 'stopped']);
  expect(log[0]!.body).toMatchObject({ reason: 'changed', breakpoint: { id: scaleId, verified: true, line: scaleLine } });

  // set again (as VS Code does on an edit): scale is verified at once, a launch recorded so far has it; finish still pending
  bps = (await c.setBreakpointsRequest({ source, breakpoints: [{ line: scaleLine }, { line: finishLine }] })).body.breakpoints;
  expect(bps.map((b) => [b.verified, b.line, b.message])).toEqual([[true, scaleLine, undefined], [false, finishLine, 'pending: no launch of finish reached yet']]);
  const finishId2 = bps[1]!.id!;

  // on to launch 3 (scale's second warp first): the finish breakpoints resolve there; the replaced
  // ids (scale's and finish's first) get no event
  log.length = 0;
  s = await move(c, () => c.continueRequest({ threadId: s.body.threadId! }));
  expect(log.map((e) => e.event)).toEqual(['stopped']);
  s = await move(c, () => c.continueRequest({ threadId: s.body.threadId! }));
  const changed = log.filter((e) => e.event === 'breakpoint').map((e) => e.body as DebugProtocol.BreakpointEvent['body']);
  expect(changed.map((b) => b.breakpoint.id).sort()).toEqual([finishId2, fnBps[0]!.id!].sort());
  expect(changed.every((b) => b.reason === 'changed' && b.breakpoint.verified)).toBe(true);
  expect(changed.find((b) => b.breakpoint.id === finishId2)?.breakpoint.line).toBe(finishLine);
  expect(changed.map((b) => b.breakpoint.id)).not.toContain(finishId);
  expect(log.at(-1)!.event).toBe('stopped');
  expect((await top(c, s.body.threadId!)).name).toBe('finish(const int *, int *, int) [launch 3]');
}, 600_000);

testIf(why)('the program\'s output after its last launch (its final host check) reaches the Debug Console at the end, once, in order', async () => {
  const log: { event: string; body: unknown }[] = [];
  const c = await launchOffbyone(false, log, ['output']);
  const stdout = (): string => log.map((e) => e.body as DebugProtocol.OutputEvent['body']).filter((b) => b.category === 'stdout').map((b) => b.output).join('');
  // offbyone prints only after its three launches: out[i] = 2·i(i+1)/2 + 1 where (i+1)(i+2) + 1 is expected, for each i < 8, then FAIL
  const expected = Array.from({ length: 8 }, (_, i) => `out[${i}] = ${i * (i + 1) + 1}, expected ${(i + 1) * (i + 2) + 1}\n`).join('') + 'FAIL\n';
  const end = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest(); // no breakpoint: runs to the program's end
  const s = await end;
  expect(s.body.reason).toBe('pause');
  expect(stdout()).toBe(expected);
  // continuing at the end, back and forward again, and terminating send nothing twice
  await move(c, () => c.continueRequest({ threadId: s.body.threadId! }));
  await move(c, () => c.reverseContinueRequest({ threadId: s.body.threadId! }));
  await move(c, () => c.continueRequest({ threadId: s.body.threadId! }));
  await c.terminateRequest({});
  expect(stdout()).toBe(expected);
}, 600_000);

testIf(why)('terminating before the end sends the output not passed yet', async () => {
  const log: { event: string; body: unknown }[] = [];
  const c = await launchOffbyone(true, log, ['output']);
  const entry = c.waitForEvent('stopped', LONG);
  await c.configurationDoneRequest();
  await entry;
  const stdout = (): string => log.map((e) => e.body as DebugProtocol.OutputEvent['body']).filter((b) => b.category === 'stdout').map((b) => b.output).join('');
  expect(stdout()).toBe('');
  await c.terminateRequest({});
  expect(stdout()).toMatch(/^out\[0\] = 1, expected 3\n[^]*FAIL\n$/);
}, 600_000);

testIf(why)('a condition that fails to evaluate, on a breakpoint pending at set time, stops at its hit in a later launch and says why (gdb, #27)', async () => {
  const log: { event: string; body: unknown }[] = [];
  const c = await launchOffbyone(false, log, ['breakpoint']);
  const scaleLine = lineOf('if (i < n) b[i] = 2 * a[i]');
  const bp = (await c.setBreakpointsRequest({ source: { path: join(DIR, 'offbyone.cu') }, breakpoints: [{ line: scaleLine, condition: 'nosuchname == 1' }] })).body.breakpoints[0]!;
  expect([bp.verified, bp.message]).toEqual([false, 'pending: no launch of scale reached yet']);
  const first = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest();
  const s = await first;
  // scale has no `nosuchname`: gdb stops at the hit rather than treat the condition as false
  expect(s.body.reason).toBe('breakpoint');
  expect(s.body.description).toBe(`Error in testing condition for breakpoint ${bp.id}: No symbol "nosuchname" in current context.`);
  const f = await top(c, s.body.threadId!);
  expect([f.name, f.line]).toEqual(['scale(const int *, int *, int) [launch 2]', scaleLine]);
  expect(log.map((e) => (e.body as DebugProtocol.BreakpointEvent['body']).breakpoint)).toMatchObject([{ id: bp.id, verified: true, line: scaleLine }]);
}, 600_000);

testIf(why)('-rdc: a breakpoint in the other translation unit\'s kernel is pending until its launch is reached, then verified at its line', async () => {
  // rdc_main.cu: fill<<<2, 32>>> (launch 1) then bump<<<1, 64>>> (launch 2), bump defined in rdc_other.cu
  const err = await nvccBuild(join(DIR, 'rdc_main.cu'), join(bin!, 'rdc'), ['-g', '-G', '-rdc=true', join(DIR, 'rdc_other.cu')]);
  if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
  const other = readFileSync(join(DIR, 'rdc_other.cu'), 'utf8').split('\n');
  const bumpLine = other.findIndex((l) => l.includes('v[i] += twice_plus_one(v[i])')) + 1;
  const log: { event: string; body: unknown }[] = [];
  const c = (dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true }));
  c.defaultTimeout = LONG;
  await c.start();
  for (const k of ['breakpoint', 'stopped']) c.on(k, (e: DebugProtocol.Event) => log.push({ event: k, body: e.body }));
  await c.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await Promise.all([c.waitForEvent('initialized', LONG), c.launchRequest({ program: './rdc', cwd: bin!, stopOnEntry: false } as DebugProtocol.LaunchRequestArguments)]);
  const bp = (await c.setBreakpointsRequest({ source: { path: join(DIR, 'rdc_other.cu') }, breakpoints: [{ line: bumpLine }] })).body.breakpoints[0]!;
  expect(bp.verified).toBe(false);
  expect(bp.message).toMatch(/^pending: no launch of .+ reached yet$/);
  const first = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest();
  const s = await first;
  expect(s.body.hitBreakpointIds).toEqual([bp.id]);
  expect(log.map((e) => e.event)).toEqual(['breakpoint', 'stopped']);
  expect(log[0]!.body).toMatchObject({ reason: 'changed', breakpoint: { id: bp.id, verified: true, line: bumpLine } });
  const f = await top(c, s.body.threadId!);
  expect([f.name, f.source?.name, f.line]).toEqual(['bump(int *, int) [launch 2]', 'rdc_other.cu', bumpLine]);
}, 600_000);

testIf(why)('a stop at a host call shows that call as the frame (cudaMemcpy at its source line), reads memory as it left it, and continue goes on into launch 1', async () => {
  const c = await launchOffbyone(true, [], []);
  const copyLine = lineOf('cudaMemcpy(d_in');
  const prefixLine = lineOf('a[i] = s;');
  await c.setBreakpointsRequest({ source: { path: join(DIR, 'offbyone.cu') }, breakpoints: [{ line: prefixLine }] });
  const entry = c.waitForEvent('stopped', LONG) as Promise<DebugProtocol.StoppedEvent>;
  await c.configurationDoneRequest();
  const tid = (await entry).body.threadId!;
  // main's calls before prefix<<<: cudaMalloc x4, cudaMemcpy(d_in), cudaMemset(d_out): the copy is step -2 of launch 1
  let s = await move(c, () => c.evaluateRequest({ expression: '-exec goto launch 1 step -2', context: 'repl' }));
  const st = (await c.stackTraceRequest({ threadId: s.body.threadId! })).body;
  expect(st.stackFrames.map((f) => [f.name, f.source?.name, f.line])).toEqual([['cudaMemcpy', 'offbyone.cu', copyLine]]);
  // the host set in[j] = j + 1 and copied it in: in[4] = 5 as the copy left it
  const ev = await c.evaluateRequest({ expression: 'in[4]', context: 'watch', frameId: st.stackFrames[0]!.id });
  expect(ev.body.result).toBe('5');
  // no device thread runs at a host call: no device scope (never launch 1's locals), one "Host call"
  // scope naming the copy: cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice) wrote sizeof in
  // = 8 ints = 32 bytes at d_in (prefix's `in`)
  const scopes = (await c.scopesRequest({ frameId: st.stackFrames[0]!.id })).body.scopes;
  expect(scopes.map((x) => x.name)).toEqual(['Host call']);
  const hostVars = (await c.variablesRequest({ variablesReference: scopes[0]!.variablesReference })).body.variables;
  const value = (name: string): string | undefined => hostVars.find((v) => v.name === name)?.value;
  expect([value('call'), value('kind'), value('site'), value('bytes written')]).toEqual(['cudaMemcpy', 'write', `offbyone.cu:${copyLine} in main`, '32']);
  const dIn = /0x[0-9a-f]+/.exec((await c.evaluateRequest({ expression: 'in', context: 'watch', frameId: st.stackFrames[0]!.id })).body.result)![0];
  expect(value('destination')).toBe(`${dIn} (32 bytes)`);
  // a write there is refused, in one line
  const write = await c.customRequest('setExpression', { expression: 'in[4]', value: '9', frameId: st.stackFrames[0]!.id }).then(() => 'written', (e: Error) => e.message);
  expect(write).toBe(`cannot write at a host call (cudaMemcpy at offbyone.cu:${copyLine} in main): no device thread runs there; go to a launch (launch N) to write`);
  // stepBack: no launch comes before main's first, so it stays at the copy (not launch 1's start, which is later)
  s = await move(c, () => c.stepBackRequest({ threadId: s.body.threadId! }));
  expect((await c.stackTraceRequest({ threadId: s.body.threadId! })).body.stackFrames.map((f) => [f.name, f.line])).toEqual([['cudaMemcpy', copyLine]]);
  // continue: prefix's breakpoint in launch 1, a device frame again
  s = await move(c, () => c.continueRequest({ threadId: tid }));
  expect(s.body.reason).toBe('breakpoint');
  const f = await top(c, s.body.threadId!);
  expect(f.name).toBe('prefix(const int *, int *, int) [launch 1]');
  expect(f.line).toBe(prefixLine);
  // a write in the launch (setVariable on its local s): a what-if of launch 1, in which next goes on
  // (line 17 `a[i] = s;` to the closing brace) with s still 42
  const locals = (await c.scopesRequest({ frameId: f.id })).body.scopes;
  let sScope: number | undefined;
  for (const sc of locals) if ((await c.variablesRequest({ variablesReference: sc.variablesReference })).body.variables.some((v) => v.name === 's')) sScope ??= sc.variablesReference;
  const set = await c.setVariableRequest({ variablesReference: sScope!, name: 's', value: '42' });
  expect(set.body.value).toBe('42');
  s = await move(c, () => c.nextRequest({ threadId: s.body.threadId! }));
  const after = await top(c, s.body.threadId!);
  const ev2 = async (e: string): Promise<string> => (await c.evaluateRequest({ expression: e, context: 'watch', frameId: after.id })).body.result;
  expect([after.name, after.line]).toEqual(['prefix(const int *, int *, int) [launch 1]', prefixLine + 1]);
  expect(await ev2('s')).toBe('42');
}, 600_000);
