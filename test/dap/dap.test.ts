/**
 * The DAP front end, driven as VS Code drives it: a real `ptxdbg dap` process on stdio, spoken to
 * by @vscode/debugadapter-testsupport's DebugClient. Expected values come from the samples' CUDA
 * sources and their input files (read here with plain Node), never from the debugger's output.
 *
 * Needs the build (`npm test` builds first): the adapter runs from dist/src/cli.js.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ROOT, tempDir, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const built = existsSync(CLI) ? null : 'dist/src/cli.js is missing: run `npm run build` first';
// a loaded machine records slowly: generous limits, no timing assertions
const LONG = 120_000;
/** A test with the long limit, skipped (saying why) without the build. */
const dapTest = (name: string, fn: () => Promise<void>): void => testIf(built)(name, fn, LONG);

const SAXPY = join(ROOT, 'samples', 'saxpy');
const f32s = (p: string): Float32Array => { const b = readFileSync(p); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
const X = f32s(join(SAXPY, 'in', 'x.bin'));
const Y = f32s(join(SAXPY, 'in', 'y.bin'));

/** A float the debugger printed, as the f32 it names. */
const asF32 = (text: string): number => Math.fround(Number(text));

async function client(): Promise<DebugClient> {
  // `shell` lets the executable carry the subcommand: `node dist/src/cli.js dap`
  const dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true });
  dc.defaultTimeout = LONG;
  await dc.start();
  await dc.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsMemoryReferences: true });
  return dc;
}

async function launch(dc: DebugClient, args: Record<string, unknown>, exceptions: string[] = ['faults']): Promise<DebugProtocol.StoppedEvent> {
  const stopped = dc.waitForEvent('stopped', LONG);
  await Promise.all([dc.waitForEvent('initialized', LONG), dc.launchRequest(args as DebugProtocol.LaunchRequestArguments)]);
  await dc.setExceptionBreakpointsRequest({ filters: exceptions });
  await dc.configurationDoneRequest();
  return (await stopped) as DebugProtocol.StoppedEvent;
}

/** Run a move and wait for the stop it causes. */
async function move(dc: DebugClient, req: () => Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
  const stopped = dc.waitForEvent('stopped', LONG);
  await req();
  return (await stopped) as DebugProtocol.StoppedEvent;
}

async function top(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  const st = await dc.stackTraceRequest({ threadId });
  return st.body.stackFrames[0]!;
}

async function evaluate(dc: DebugClient, expression: string, frameId?: number): Promise<string> {
  const r = await dc.evaluateRequest({ expression, context: 'watch', ...(frameId !== undefined ? { frameId } : {}) });
  return r.body.result;
}

describe('ptxdbg dap', () => {
  let dc: DebugClient | undefined;
  afterEach(async () => {
    if (dc) await dc.stop().catch(() => undefined);
    dc = undefined;
  });

  dapTest('advertises reverse debugging and the requests VS Code needs', async () => {
    dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true });
    dc.defaultTimeout = LONG;
    await dc.start();
    const r = await dc.initializeRequest({ adapterID: 'ptxdbg', pathFormat: 'path' });
    const c = r.body!;
    expect(c.supportsStepBack).toBe(true);
    expect(c.supportsGotoTargetsRequest).toBe(true);
    expect(c.supportsConditionalBreakpoints && c.supportsHitConditionalBreakpoints && c.supportsFunctionBreakpoints).toBe(true);
    expect(c.supportsDataBreakpoints && c.supportsInstructionBreakpoints && c.supportsDisassembleRequest && c.supportsReadMemoryRequest).toBe(true);
    expect(c.exceptionBreakpointFilters?.map((f) => f.filter)).toEqual(['faults', 'races']);
  });

  dapTest('breaks at a line, steps forward and back, and reads variables per scope', async () => {
    dc = await client();
    const entry = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx') });
    expect(entry.body.reason).toBe('entry');
    const bp = await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [{ line: 13 }] });
    expect(bp.body.breakpoints[0]!.verified).toBe(true);

    const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    expect(hit.body.reason).toBe('breakpoint');
    const tid = hit.body.threadId!;
    // the first thread to reach line 13 is block 0's thread 0 (lowest lane of the first warp)
    const threads = await dc.threadsRequest();
    expect(threads.body.threads.find((t) => t.id === tid)?.name).toBe('block (0,0,0) thread (0,0,0)');
    expect(threads.body.threads).toHaveLength(32);
    expect(threads.body.threads.map((t) => t.name)).toContain('block (0,0,0) thread (31,0,0)');
    let f = await top(dc, tid);
    expect(f.line).toBe(13);
    expect(f.source?.name).toBe('kernel.cu');

    await move(dc, () => dc!.nextRequest({ threadId: tid }));
    f = await top(dc, tid);
    expect(f.line).toBe(14);
    expect(asF32(await evaluate(dc, 'xi', f.id))).toBe(X[0]);
    expect(await evaluate(dc, 'i', f.id)).toBe('0');

    // scopes per address space: parameters and registers, each with the kernel's values
    const scopes = (await dc.scopesRequest({ frameId: f.id })).body.scopes;
    const names = scopes.map((s) => s.name);
    expect(names).toContain('Params');
    expect(names).toContain('Registers');
    const params = (await dc.variablesRequest({ variablesReference: scopes.find((s) => s.name === 'Params')!.variablesReference })).body.variables;
    expect(params.find((v) => v.name === 'n')?.value).toBe('200');
    expect(asF32(params.find((v) => v.name === 'a')!.value)).toBe(2.5);
    expect(await evaluate(dc, 'n', f.id)).toBe('200');
    expect(asF32(await evaluate(dc, 'a', f.id))).toBe(2.5);
    expect(asF32(await evaluate(dc, 'x[3]', f.id))).toBe(X[3]);

    await move(dc, () => dc!.nextRequest({ threadId: tid }));
    f = await top(dc, tid);
    expect(f.line).toBe(15);
    expect(asF32(await evaluate(dc, 'yi', f.id))).toBe(Y[0]);

    // step into axpy: the callee's first body line, its arguments from the caller
    await move(dc, () => dc!.stepInRequest({ threadId: tid }));
    const st = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
    // named as C++ debuggers name frames: kernel.cu's axpy(float a, float x, float y) and
    // saxpy(int n, float a, const float* x, float* y), with their parameter types
    expect(st.map((x) => x.name)).toEqual(['axpy(float, float, float)', 'saxpy(int, float, const float *, float *)']);
    expect(st[0]!.line).toBe(4);
    expect(st[1]!.line).toBe(15);
    expect(asF32(await evaluate(dc, 'x', st[0]!.id))).toBe(X[0]);

    // and back: the caller's line 15, then line 14
    await move(dc, () => dc!.stepBackRequest({ threadId: tid }));
    f = await top(dc, tid);
    expect(f.line).toBe(15);
    await move(dc, () => dc!.stepBackRequest({ threadId: tid }));
    f = await top(dc, tid);
    expect(f.line).toBe(14);
    expect(asF32(await evaluate(dc, 'xi', f.id))).toBe(X[0]);
  });

  dapTest('reverse-continue to a data breakpoint stops on the writing step; readMemory reads the bytes', async () => {
    dc = await client();
    const entry = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx') });
    await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [{ line: 13 }] });
    const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    const tid = hit.body.threadId!;
    const f = await top(dc, tid);

    const info = await dc.dataBreakpointInfoRequest({ name: 'y[0]', frameId: f.id });
    expect(info.body.dataId).toBe('y[0]');
    expect(info.body.accessTypes).toContain('write');
    const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId!, accessType: 'write' }] });
    expect(set.body.breakpoints[0]!.verified).toBe(true);

    // memory: y[0] as the kernel's input, 4 little-endian bytes
    const ev = await dc.evaluateRequest({ expression: 'y[0]', context: 'watch', frameId: f.id });
    expect(ev.body.memoryReference).toMatch(/^global:0x[0-9a-f]+$/);
    const mem = await dc.customRequest('readMemory', { memoryReference: ev.body.memoryReference, count: 8 }) as DebugProtocol.ReadMemoryResponse;
    const bytes = Buffer.from(mem.body!.data!, 'base64');
    expect(bytes.length).toBe(8);
    expect(bytes.readFloatLE(0)).toBe(Y[0]);
    expect(bytes.readFloatLE(4)).toBe(Y[1]);

    // to the end of the recording (no line breakpoints left; the watch fires forward first)
    await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [] });
    const fwd = await move(dc, () => dc!.continueRequest({ threadId: tid }));
    expect(fwd.body.reason).toBe('data breakpoint');
    const newY = Math.fround(Math.fround(2.5 * X[0]!) + Y[0]!);
    expect(asF32(await evaluate(dc, 'y[0]'))).toBe(newY);
    const end = await move(dc, () => dc!.continueRequest({ threadId: tid }));
    expect(end.body.reason).not.toBe('data breakpoint');

    // back to the write: the stop is on the writing instruction (line 15), before it runs
    const back = await move(dc, () => dc!.reverseContinueRequest({ threadId: tid }));
    expect(back.body.reason).toBe('data breakpoint');
    const wf = await top(dc, back.body.threadId!);
    expect(wf.line).toBe(15);
    expect((await dc.threadsRequest()).body.threads.find((t) => t.id === back.body.threadId)?.name).toBe('block (0,0,0) thread (0,0,0)');
    expect(asF32(await evaluate(dc, 'y[0]', wf.id))).toBe(Y[0]);
    // one instruction forward: the store has run
    await move(dc, () => dc!.nextRequest({ threadId: back.body.threadId!, granularity: 'instruction' }));
    expect(asF32(await evaluate(dc, 'y[0]'))).toBe(newY);
  });

  dapTest('threads and stack of a recursive kernel (hit-counted function breakpoint)', async () => {
    // ackermann(2, 4) for thread 0 (samples/recursion_fnptr/gen.py sets args[0] = [2, 4, 2]):
    // the 6th call in call order, its depth and arguments, by running the recursion here
    const calls: { m: number; n: number; depth: number }[] = [];
    const ack = (m: number, n: number, depth: number): number => {
      calls.push({ m, n, depth });
      if (m === 0) return n + 1;
      if (n === 0) return ack(m - 1, 1, depth + 1);
      return ack(m - 1, ack(m, n - 1, depth + 1), depth + 1);
    };
    ack(2, 4, 1);
    const want = calls[5]!;

    dc = await client();
    const dir = join(ROOT, 'samples', 'recursion_fnptr');
    await launch(dc, { program: join(dir, 'kernel.G.ptx') });
    const fb = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'ackermann', condition: 'threadIdx.x == 0 && blockIdx.x == 0', hitCondition: '==6' }] });
    expect(fb.body.breakpoints[0]!.verified).toBe(true);
    const hit = await move(dc, () => dc!.continueRequest({ threadId: 1 }));
    expect(hit.body.reason).toBe('breakpoint');
    const tid = hit.body.threadId!;
    expect((await dc.threadsRequest()).body.threads.find((t) => t.id === tid)?.name).toBe('block (0,0,0) thread (0,0,0)');
    const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
    expect(frames.filter((x) => x.name.includes('ackermann'))).toHaveLength(want.depth);
    expect(frames).toHaveLength(want.depth + 1);
    expect(frames[frames.length - 1]!.name).toContain('recurseCall');
    expect(frames[frames.length - 1]!.line).toBe(39);
    // step into the body (past the prologue) to read the arguments of this call
    await move(dc, () => dc!.nextRequest({ threadId: tid }));
    const f = await top(dc, tid);
    expect(await evaluate(dc, 'm', f.id)).toBe(String(want.m));
    expect(await evaluate(dc, 'n', f.id)).toBe(String(want.n));
    // the caller's frame has the caller's m
    const outer = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
    expect(outer.length).toBeGreaterThanOrEqual(2);
  });

  dapTest('a race stops as an exception at one of its accesses', async () => {
    dc = await client();
    const dir = join(ROOT, 'samples', 'race_shared_raw');
    const entry = await launch(dc, { program: join(dir, 'kernel.G.ptx') }, ['faults', 'races']);
    const stop = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    expect(stop.body.reason).toBe('exception');
    expect(stop.body.description).toMatch(/^Race 1 /);
    const f = await top(dc, stop.body.threadId!);
    // the racing accesses are the shared write (line 7) and the read of another warp's slot (line 9)
    expect([7, 9]).toContain(f.line);
    const ex = await dc.exceptionInfoRequest({ threadId: stop.body.threadId! });
    expect(ex.body.exceptionId).toBe('race');
    const scopes = (await dc.scopesRequest({ frameId: f.id })).body.scopes;
    expect(scopes.map((s) => s.name)).toContain('Shared');
  });

  dapTest('disassembles PTX and breaks on an instruction', async () => {
    dc = await client();
    const entry = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx') });
    const f = await top(dc, entry.body.threadId!);
    expect(f.instructionPointerReference).toMatch(/^0x[0-9a-f]+$/);
    const dis = await dc.disassembleRequest({ memoryReference: f.instructionPointerReference!, instructionCount: 4 });
    expect(dis.body!.instructions).toHaveLength(4);
    const ptx = readFileSync(join(SAXPY, 'kernel.G.ptx'), 'utf8').split('\n');
    for (const ins of dis.body!.instructions) expect(ptx[ins.line! - 1]).toContain(ins.instruction.split(/\s+/)[0]!);
    const target = dis.body!.instructions[2]!;
    const ib = await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: target.address }] }) as DebugProtocol.SetInstructionBreakpointsResponse;
    expect(ib.body.breakpoints[0]!.verified).toBe(true);
    const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    expect(hit.body.reason).toBe('breakpoint');
    expect((await top(dc, hit.body.threadId!)).instructionPointerReference).toBe(target.address);
  });

  dapTest('goto targets jump to a step where the thread is at a line; the Debug Console runs gdb commands', async () => {
    dc = await client();
    const entry = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx') });
    const tid = entry.body.threadId!;
    const targets = await dc.gotoTargetsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, line: 15 });
    expect(targets.body.targets.length).toBeGreaterThan(0);
    const stop = await move(dc, () => dc!.gotoRequest({ threadId: tid, targetId: targets.body.targets[0]!.id }));
    expect(stop.body.reason).toBe('goto');
    const f = await top(dc, tid);
    expect(f.line).toBe(15);
    expect(asF32(await evaluate(dc, 'yi', f.id))).toBe(Y[0]);
    // back in time, then the gdb language: `-exec` in the Debug Console
    const r = await dc.evaluateRequest({ expression: '-exec print n', context: 'repl' });
    expect(r.body.result).toBe('$1 = 200');
    const back = dc.waitForEvent('stopped', LONG);
    await dc.evaluateRequest({ expression: '-exec goto 0', context: 'repl' });
    expect(((await back) as DebugProtocol.StoppedEvent).body.reason).toBe('goto');
  });

  dapTest('printf output arrives as output events, once, as execution passes it', async () => {
    dc = await client();
    const dir = join(ROOT, 'samples', 'malloc_printf');
    const out: string[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => { if (e.body.category === 'stdout') out.push(e.body.output); });
    const entry = await launch(dc, { program: join(dir, 'kernel.G.ptx') });
    const end = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    expect(end.body.reason).toBe('pause');
    // the kernel's whole stdout (the conformance expectation), sent once
    expect(out.join('')).toBe(readFileSync(join(dir, 'expected', 'stdout.txt'), 'utf8'));
    await move(dc, () => dc!.reverseContinueRequest({ threadId: entry.body.threadId! }));
    await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    expect(out.join('')).toBe(readFileSync(join(dir, 'expected', 'stdout.txt'), 'utf8'));
  });

  dapTest('serves a socket with --port (port 0: a free one, announced on stderr)', async () => {
    const server = spawn(process.execPath, [CLI, 'dap', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const port = await new Promise<number>((res, rej) => {
        let err = '';
        server.stderr.on('data', (b: Buffer) => { err += b.toString(); const m = /listening on 127\.0\.0\.1:(\d+)/.exec(err); if (m) res(Number(m[1])); });
        server.on('exit', (code) => rej(new Error(`ptxdbg dap --port exited with ${code}: ${err}`)));
      });
      dc = new DebugClient('node', CLI, 'ptxdbg');
      dc.defaultTimeout = LONG;
      await dc.start(port);
      await dc.initializeRequest({ adapterID: 'ptxdbg', pathFormat: 'path' });
      const entry = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx') });
      expect(entry.body.reason).toBe('entry');
      await dc.stop();
      dc = undefined;
    } finally {
      server.kill();
    }
  });

  dapTest('a fault stops as an exception on the faulting thread (bug_trap: thread 45 traps at line 8)', async () => {
    dc = await client();
    const dir = join(ROOT, 'samples', 'bug_trap');
    const stop = await launch(dc, { program: join(dir, 'kernel.G.ptx'), stopOnEntry: false });
    expect(stop.body.reason).toBe('exception');
    const tid = stop.body.threadId!;
    expect((await dc.threadsRequest()).body.threads.find((t) => t.id === tid)?.name).toBe('block (0,0,0) thread (45,0,0)');
    const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
    // the -G build calls a __trap wrapper; VS Code opens the top frame, which is the user's
    // __trap() call, kernel.cu line 8 in gatherChecked, not the sourceless wrapper (#27)
    expect(frames[0]).toMatchObject({ name: expect.stringMatching(/^gatherChecked/), line: 8, source: { name: 'kernel.cu' } });
    expect(frames.some((f) => /__trap/.test(f.name))).toBe(false);
    const ex = await dc.exceptionInfoRequest({ threadId: tid });
    expect(ex.body.exceptionId).toBe('fault');
    expect(ex.body.description).toMatch(/trap/);
  });

  dapTest('a bad launch is an error response, not a crash', async () => {
    dc = await client();
    await expect(dc.launchRequest({ program: join(ROOT, 'samples', 'no-such-kernel.ptx') } as DebugProtocol.LaunchRequestArguments)).rejects.toThrow(/no-such-kernel/);
  });

  dapTest('a condition that does not parse is verified: false with gdb\'s message; one that fails at a hit stops and says why (#27)', async () => {
    // samples/origin_flow kernel.cu line 16 `s[t] = b;` runs in both warps of its one block
    dc = await client();
    const dir = join(ROOT, 'samples', 'origin_flow');
    await launch(dc, { program: join(dir, 'kernel.G.ptx') });
    const src = join(dir, 'kernel.cu');
    const bad = await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 16, condition: 'b ==' }] });
    expect(bad.body.breakpoints[0]!.verified).toBe(false);
    expect(bad.body.breakpoints[0]!.message).toBe("A syntax error in expression, near `'.");
    const unknown = await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 16, condition: 'nosuchname == 1' }] });
    expect(unknown.body.breakpoints[0]!.verified).toBe(true);
    const hit = await move(dc, () => dc!.continueRequest({ threadId: 1 }));
    expect(hit.body.reason).toBe('breakpoint');
    expect(hit.body.description).toBe('Error in testing condition for breakpoint ' + String(unknown.body.breakpoints[0]!.id) + ': No symbol "nosuchname" in current context.');
    expect((await top(dc, hit.body.threadId!)).line).toBe(16);
  });

  test('the VS Code extension contributes the ptxdbg debugger, its launch attributes and the ptx language', () => {
    const ext = join(ROOT, 'src', 'frontends', 'dap', 'vscode');
    const pkg = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8')) as {
      main: string; license: string;
      contributes: {
        languages: { id: string; extensions: string[]; configuration: string }[];
        grammars: { language: string; scopeName: string; path: string }[];
        breakpoints: { language: string }[];
        debuggers: {
          type: string; configurationAttributes: { launch: { required: string[]; properties: Record<string, unknown> } };
          initialConfigurations: Record<string, unknown>[]; configurationSnippets: { label: string; body: Record<string, unknown> }[];
        }[];
      };
    };
    const c = pkg.contributes;
    const d = c.debuggers[0]!;
    expect(d.type).toBe('ptxdbg');
    expect(d.configurationAttributes.launch.required).toEqual(['program']);
    const props = Object.keys(d.configurationAttributes.launch.properties);
    expect(props).toEqual(expect.arrayContaining(['program', 'launch', 'kernel', 'grid', 'block', 'args', 'stopOnEntry', 'sourceDir', 'cwd', 'env']));
    // every attribute a configuration uses is one the adapter declares (the rest are VS Code's own)
    for (const cfg of [...d.initialConfigurations, ...d.configurationSnippets.map((s) => s.body)]) {
      expect(Object.keys(cfg).filter((k) => !['type', 'request', 'name'].includes(k) && !props.includes(k))).toEqual([]);
      expect(cfg['request']).toBe('launch');
    }
    // a kernel, a trace and a whole program, the program with its arguments, directory and environment
    const bodies = d.configurationSnippets.map((s) => s.body);
    expect(bodies.some((b) => /\.ptx\b/.test(String(b['program'])))).toBe(true);
    expect(bodies.some((b) => /\.ptxtrace\b/.test(String(b['program'])))).toBe(true);
    expect(bodies.some((b) => 'args' in b && 'cwd' in b && 'env' in b)).toBe(true);
    expect(existsSync(join(ext, pkg.main))).toBe(true);
    expect(pkg.license).toBe('MIT');
    expect(c.languages).toEqual([expect.objectContaining({ id: 'ptx', extensions: ['.ptx'] })]);
    expect(existsSync(join(ext, c.languages[0]!.configuration))).toBe(true);
    expect(c.grammars).toEqual([expect.objectContaining({ language: 'ptx', scopeName: 'source.ptx' })]);
    expect(existsSync(join(ext, c.grammars[0]!.path))).toBe(true);
    expect(c.breakpoints.map((b) => b.language)).toEqual(expect.arrayContaining(['cuda-cpp', 'ptx']));
  });

  dapTest('the Lanes scope shows a local in all 32 lanes; the origin request goes to the writing step', async () => {
    dc = await client();
    const dir = join(ROOT, 'samples', 'origin_flow');
    const entry = await launch(dc, { program: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), stopOnEntry: true });
    await dc.setBreakpointsRequest({ source: { path: join(dir, 'kernel.cu') }, breakpoints: [{ line: 16 }] });
    const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    const f = await top(dc, hit.body.threadId!);
    const scopes = await dc.scopesRequest({ frameId: f.id });
    const lanesScope = scopes.body.scopes.find((s) => s.name === 'Lanes')!;
    const vars = await dc.variablesRequest({ variablesReference: lanesScope.variablesReference });
    const b = vars.body.variables.find((v) => v.name === 'b')!;
    const lanes = await dc.variablesRequest({ variablesReference: b.variablesReference });
    expect(lanes.body.variables).toHaveLength(32);
    // b = 2 * (in[t] + 1) = 2 * (10 t + 1)
    expect(lanes.body.variables.map((v) => Number(v.value))).toEqual(Array.from({ length: 32 }, (_, t) => 2 * (10 * t + 1)));
    expect(lanes.body.variables[3]!.name).toBe('lane 3 (3,0,0)');
    const stopped = dc.waitForEvent('stopped', LONG);
    const r = await dc.customRequest('origin', { expression: 'b' });
    await stopped;
    const body = r.body as { step: number; function: string; inputs: { text: string; followable: boolean }[] };
    expect(body.function).toBe('_Z4flowPKiPi');
    expect(body.inputs.length).toBeGreaterThan(0);
    const f2 = await top(dc, hit.body.threadId!);
    expect(f2.line).toBe(15); // b = twice(a): the value arrives from the call on line 15
  });
  // The launch configurations the extension contributes, each as VS Code sends it, and the
  // requests a session in VS Code makes that the tests above do not (stepOut, pause, terminate).
  dapTest('a kernel without a launch file (kernel, grid, block, args, random schedule, sourceDir): break in axpy, read, step out, pause, terminate', async () => {
    // the PTX alone in a directory, so no launch.json is found beside it; the CUDA source is found through sourceDir
    const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-dap-'));
    try {
      copyFileSync(join(SAXPY, 'kernel.G.ptx'), join(dir, 'kernel.G.ptx'));
      dc = await client();
      const entry = await launch(dc, {
        program: join(dir, 'kernel.G.ptx'), kernel: '_Z5saxpyifPKfPf', grid: '2', block: '128',
        args: ['s32:200', 'f32:2.5', `f32[200]@${join(SAXPY, 'in', 'x.bin')}`, `f32[200]@${join(SAXPY, 'in', 'y.bin')}`],
        schedule: 'random', seed: 3, sourceDir: SAXPY, stopOnEntry: true,
      });
      expect(entry.body.reason).toBe('entry');
      // kernel.cu line 4: float ax = a * x; (inside axpy)
      const bp = await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [{ line: 4 }] });
      expect(bp.body.breakpoints[0]!.verified).toBe(true);
      const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
      expect(hit.body.reason).toBe('breakpoint');
      const tid = hit.body.threadId!;
      const name = (await dc.threadsRequest()).body.threads.find((t) => t.id === tid)!.name;
      const [bx, tx] = /block \((\d+),0,0\) thread \((\d+),0,0\)/.exec(name)!.slice(1).map(Number) as [number, number];
      const i = bx * 128 + tx; // int i = blockIdx.x * blockDim.x + threadIdx.x
      const f = await top(dc, tid);
      expect(f.line).toBe(4);
      expect(f.source?.path).toBe(join(SAXPY, 'kernel.cu'));
      expect(asF32(await evaluate(dc, 'a', f.id))).toBe(2.5);
      expect(asF32(await evaluate(dc, 'x', f.id))).toBe(X[i]);
      await move(dc, () => dc!.stepOutRequest({ threadId: tid }));
      const back = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
      expect(back[0]!.line).toBe(15); // y[i] = axpy(a, xi, yi);
      expect(back).toHaveLength(1);
      // nothing runs between requests: pause answers and moves nothing
      await dc.pauseRequest({ threadId: tid });
      expect((await top(dc, tid)).line).toBe(15);
      await dc.terminateRequest({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  dapTest('maxSteps bounds the recording; stopOnEntry false runs to the step-limit fault', async () => {
    dc = await client();
    const out: string[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => { out.push(e.body.output); });
    // saxpy takes far more than 40 warp-steps (8 warps of about 40 instructions each)
    const stop = await launch(dc, { program: join(SAXPY, 'kernel.G.ptx'), maxSteps: 40, stopOnEntry: false });
    expect(stop.body.reason).toBe('exception');
    const ex = await dc.exceptionInfoRequest({ threadId: stop.body.threadId! });
    expect(ex.body.description).toMatch(/step limit reached: 40 warp-steps/);
    // 40 steps run; the 41st is the one refused
    const n = Number(/recorded (\d+) warp-steps/.exec(out.join(''))?.[1]);
    expect(n).toBeGreaterThanOrEqual(40);
    expect(n).toBeLessThanOrEqual(41);
  });

  dapTest('a trace from ptxdbg record replays: break, step back, read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-dap-'));
    try {
      const trace = join(dir, 'run.ptxtrace');
      const rec = spawnSync(process.execPath, [CLI, 'record', join(SAXPY, 'kernel.G.ptx'), '-o', trace], { cwd: ROOT, encoding: 'utf8' });
      expect(rec.status).toBe(0);
      dc = await client();
      const entry = await launch(dc, { program: trace, sourceDir: SAXPY });
      await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [{ line: 14 }] });
      const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
      const tid = hit.body.threadId!;
      const f = await top(dc, tid);
      expect(f.line).toBe(14);
      // thread (0,0,0) of block 0 is i = 0: xi = x[0] was read on line 13
      expect((await dc.threadsRequest()).body.threads.find((t) => t.id === tid)?.name).toBe('block (0,0,0) thread (0,0,0)');
      expect(asF32(await evaluate(dc, 'xi', f.id))).toBe(X[0]);
      await move(dc, () => dc!.stepBackRequest({ threadId: tid }));
      expect((await top(dc, tid)).line).toBe(13);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  dapTest('an executable that launches no kernel, or bad program arguments, is a clear error', async () => {
    dc = await client();
    // any ELF executable is run as a whole program: this test's own node makes no CUDA call
    await expect(dc.launchRequest({ program: process.execPath, args: ['--version'], cwd: ROOT, env: { A: '1' } } as DebugProtocol.LaunchRequestArguments))
      .rejects.toThrow(/made no kernel launch/);
    await expect(dc.launchRequest({ program: process.execPath, args: 'one string' } as unknown as DebugProtocol.LaunchRequestArguments))
      .rejects.toThrow(/"args" must be an array of strings/);
  });

  const nvcc = spawnSync('sh', ['-c', 'command -v nvcc']).status === 0 ? null : 'nvcc is not on the PATH';
  testIf(built ?? nvcc)('a .cu program is compiled with nvcc -G for the arch and debugged at its source', async () => {
    // nvcc's output goes to a cache of this test's own, not the user's
    const cache = tempDir('ptxdbg-dap-cache-');
    dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true, env: { ...process.env, PTXDBG_CACHE: cache } });
    dc.defaultTimeout = LONG;
    await dc.start();
    await dc.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const entry = await launch(dc, { program: join(SAXPY, 'kernel.cu'), arch: 'sm_80' });
    await dc.setBreakpointsRequest({ source: { path: join(SAXPY, 'kernel.cu') }, breakpoints: [{ line: 14 }] });
    const hit = await move(dc, () => dc!.continueRequest({ threadId: entry.body.threadId! }));
    const f = await top(dc, hit.body.threadId!);
    expect(f.line).toBe(14);
    expect(asF32(await evaluate(dc, 'xi', f.id))).toBe(X[0]);
    await dc.stop();
    dc = undefined;
  }, LONG);
});

