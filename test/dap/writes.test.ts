/**
 * DAP writes (issue #27): setVariable and setExpression, as VS Code sends them, fork a what-if
 * timeline; the original recording is kept (`-exec timeline original` shows it). Driven like
 * dap.test.ts: a real `ptxdbg dap` process on stdio. Fixture test/fixtures/whatif: thread t sums
 * tile[0..limit-1] with tile[k] = k + 1 and limit = n = 4 (values by hand from its kernel.cu).
 *
 * Needs the build (`npm test` builds first): the adapter runs from dist/src/cli.js.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ROOT, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const built = existsSync(CLI) ? null : 'dist/src/cli.js is missing: run `npm run build` first';
const LONG = 120_000;
const dapTest = (name: string, fn: () => Promise<void>): void => testIf(built)(name, fn, LONG);
const DIR = join(ROOT, 'test', 'fixtures', 'whatif');

async function client(): Promise<DebugClient> {
  const dc = new DebugClient('node', 'dist/src/cli.js dap', 'ptxdbg', { cwd: ROOT, shell: true });
  dc.defaultTimeout = LONG;
  await dc.start();
  return dc;
}

async function move(dc: DebugClient, req: () => Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
  const stopped = dc.waitForEvent('stopped', LONG);
  await req();
  return (await stopped) as DebugProtocol.StoppedEvent;
}

async function topFrame(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  return (await dc.stackTraceRequest({ threadId })).body.stackFrames[0]!;
}

async function evaluate(dc: DebugClient, expression: string, frameId: number): Promise<string> {
  return (await dc.evaluateRequest({ expression, context: 'watch', frameId })).body.result;
}

describe('ptxdbg dap writes', () => {
  let dc: DebugClient | undefined;
  afterEach(async () => {
    if (dc) await dc.stop().catch(() => undefined);
    dc = undefined;
  });

  dapTest('setVariable and setExpression write in a what-if timeline; the original keeps its values', async () => {
    dc = await client();
    const caps = (await dc.initializeRequest({ adapterID: 'ptxdbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' })).body!;
    expect(caps.supportsSetVariable).toBe(true);
    expect(caps.supportsSetExpression).toBe(true);
    const entry = dc.waitForEvent('stopped', LONG);
    await Promise.all([dc.waitForEvent('initialized', LONG), dc.launchRequest({ program: join(DIR, 'kernel.G.ptx') } as DebugProtocol.LaunchRequestArguments)]);
    await dc.configurationDoneRequest();
    const tid0 = ((await entry) as DebugProtocol.StoppedEvent).body.threadId!;
    await dc.setBreakpointsRequest({ source: { path: join(DIR, 'kernel.cu') }, breakpoints: [{ line: 11 }, { line: 14 }] });
    const hit = await move(dc, () => dc!.continueRequest({ threadId: tid0 }));
    const tid = hit.body.threadId!;
    let f = await topFrame(dc, tid);
    expect(f.line).toBe(11);
    expect(await evaluate(dc, 'limit', f.id)).toBe('4');

    // setVariable on the local `limit` as the Variables view lists it
    const scopes = (await dc.scopesRequest({ frameId: f.id })).body.scopes;
    let found: { ref: number; v: DebugProtocol.Variable } | undefined;
    for (const s of scopes) {
      const vars = (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
      const v = vars.find((x) => x.name === 'limit');
      if (v) { found = { ref: s.variablesReference, v }; break; }
    }
    expect(found?.v.value).toBe('4');
    const refreshed = dc.waitForEvent('stopped', LONG);
    const set = await dc.setVariableRequest({ variablesReference: found!.ref, name: 'limit', value: '6' });
    expect(set.body.value).toBe('6');
    await refreshed; // the client re-reads: the session is now in what-if 1
    f = await topFrame(dc, tid);
    expect(await evaluate(dc, 'limit', f.id)).toBe('6');

    // setExpression on a shared element: tile[2] = 3 becomes 100
    const again = dc.waitForEvent('stopped', LONG);
    const ex = (await dc.send('setExpression', { expression: 'tile[2]', value: '100', frameId: f.id })) as DebugProtocol.SetExpressionResponse;
    expect(ex.body.value).toBe('100');
    await again;
    f = await topFrame(dc, tid);
    const info = (await dc.evaluateRequest({ expression: '-exec info timeline', context: 'repl', frameId: f.id })).body.result;
    expect(info).toMatch(/what-if 1: \d+ steps, 2 writes:/);

    // the original recording still has limit 4 and tile[2] 3
    const back = dc.waitForEvent('stopped', LONG);
    await dc.evaluateRequest({ expression: '-exec timeline original', context: 'repl', frameId: f.id });
    await back;
    f = await topFrame(dc, tid);
    expect(await evaluate(dc, 'limit', f.id)).toBe('4');
    expect(await evaluate(dc, 'tile[2]', f.id)).toBe('3');

    // and in the what-if, thread 0 sums 1 + 2 + 100 + 4 + 5 + 6 = 118
    const into = dc.waitForEvent('stopped', LONG);
    await dc.evaluateRequest({ expression: '-exec timeline 1', context: 'repl', frameId: f.id });
    await into;
    await move(dc, () => dc!.continueRequest({ threadId: tid }));
    f = await topFrame(dc, tid);
    expect(f.line).toBe(14);
    expect(await evaluate(dc, 's', f.id)).toBe('118');
  });

  dapTest('a write that cannot be made is an error response and changes nothing', async () => {
    dc = await client();
    await dc.initializeRequest({ adapterID: 'ptxdbg', pathFormat: 'path' });
    const entry = dc.waitForEvent('stopped', LONG);
    await Promise.all([dc.waitForEvent('initialized', LONG), dc.launchRequest({ program: join(DIR, 'kernel.G.ptx') } as DebugProtocol.LaunchRequestArguments)]);
    await dc.configurationDoneRequest();
    const tid0 = ((await entry) as DebugProtocol.StoppedEvent).body.threadId!;
    await dc.setBreakpointsRequest({ source: { path: join(DIR, 'kernel.cu') }, breakpoints: [{ line: 11 }] });
    const hit = await move(dc, () => dc!.continueRequest({ threadId: tid0 }));
    const f = await topFrame(dc, hit.body.threadId!);
    await expect(dc.send('setExpression', { expression: 'limit + 1', value: '3', frameId: f.id })).rejects.toThrow('Left operand of assignment is not an lvalue.');
    const info = (await dc.evaluateRequest({ expression: '-exec info timeline', context: 'repl', frameId: f.id })).body.result;
    expect(info).toMatch(/^Current timeline: the original recording/);
  });
});
