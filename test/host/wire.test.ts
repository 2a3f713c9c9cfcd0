/**
 * The wire between the runtime and ptxdbg refuses every malformed request with an error status
 * (a cudaError_t the program sees) and one line on ptxdbg's stderr, and goes on serving: unknown
 * ops, payloads shorter than their fields, sizes and pointers out of range, bulk-copy requests
 * naming a descriptor that is not a memory file. A frame whose length cannot be right gets an
 * error and ends the connection; a connection that closes mid-frame ends the serving. Expected
 * statuses are the CUDA runtime's cudaError_t values (cudaErrorInvalidValue 1,
 * cudaErrorNotSupported 801).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { missingTool, testIf } from '../helpers.js';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fatbin, fields, frame, OP, TWICE_PTX as PTX, WireSession } from './wire-client.js';

const INVALID_VALUE = 1;
const NOT_SUPPORTED = 801;


const u64At = (b: Uint8Array, o = 0): bigint => new DataView(b.buffer, b.byteOffset).getBigUint64(o, true);
const words = (b: Uint8Array): number[] => [...new Uint32Array(b.slice().buffer)];

/** A session with a module and 4 words of device memory holding 1 2 3 4. */
async function ready(pid?: number): Promise<{ s: WireSession; ptr: bigint }> {
  const s = new WireSession(pid);
  expect((await s.call(OP.hello, fields([1, 'u32'])))?.status).toBe(0);
  expect((await s.call(OP.module, fatbin(PTX)))?.status).toBe(0);
  const m = await s.call(OP.malloc, fields([16, 'u64'], [0, 'u32']));
  const ptr = u64At(m!.payload);
  expect((await s.call(OP.write, fields([ptr, 'u64'], new Uint8Array(Uint32Array.of(1, 2, 3, 4).buffer))))?.status).toBe(0);
  return { s, ptr };
}

/** A launch request as cudart.c packs it: 12 u32 (module, grid, block, shared, flags, name and parameter lengths, 0), name, parameters. */
const launch = (name: string, params: Uint8Array, extra = new Uint8Array(0)): Uint8Array =>
  fields([0, 'u32'], [1, 'u32'], [1, 'u32'], [1, 'u32'], [4, 'u32'], [1, 'u32'], [1, 'u32'], [0, 'u32'], [0, 'u32'], [name.length, 'u32'], [params.length, 'u32'], [0, 'u32'], name, params, extra);

test('a well-formed session: hello, module, memory, a launch and its result read back', async () => {
  const { s, ptr } = await ready();
  expect((await s.call(OP.launch, launch('twice', fields([ptr, 'u64']))))?.status).toBe(0);
  const r = await s.call(OP.read, fields([ptr, 'u64'], [16, 'u64']));
  expect(words(r!.payload)).toEqual([2, 4, 6, 8]);
  await s.close();
  expect(s.lines).toEqual([]);
});

test('malformed requests get an error status and one line each, and the connection goes on', async () => {
  const { s, ptr } = await ready();
  const cases: [string, number, Uint8Array, number, RegExp][] = [
    ['unknown op', 99, new Uint8Array(3), NOT_SUPPORTED, /unknown request 99/],
    ['op 0', 0, new Uint8Array(0), NOT_SUPPORTED, /unknown request 0/],
    ['cudaMalloc without its kind', OP.malloc, fields([16, 'u64']), INVALID_VALUE, /cudaMalloc: malformed request: a request is shorter than its fields \(8 bytes\)/],
    ['empty write', OP.write, new Uint8Array(4), INVALID_VALUE, /malformed request/],
    ['a size past 2^53', OP.read, fields([ptr, 'u64'], [2n ** 63n, 'u64']), INVALID_VALUE, /a size of 9223372036854775808 bytes/],
    ['a read past its allocation', OP.read, fields([ptr + 8n, 'u64'], [16, 'u64']), INVALID_VALUE, /16 bytes at 0x[0-9a-f]+ are not inside one device allocation/],
    ['a write to address 0', OP.write, fields([0, 'u64'], 'abcd'), INVALID_VALUE, /not inside one device allocation/],
    ['a copy of 2^52 bytes', OP.copy, fields([ptr, 'u64'], [ptr, 'u64'], [2 ** 52, 'u64']), INVALID_VALUE, /not inside one device allocation/],
    ['a launch whose name runs past the payload', OP.launch, launch('twice', fields([ptr, 'u64'])).slice(0, 50), INVALID_VALUE, /a launch: malformed request/],
    ['a launch header cut short', OP.launch, new Uint8Array(20), INVALID_VALUE, /a launch: malformed request/],
    ['a bulk copy naming no descriptor', OP.bulkWrite, fields([ptr, 'u64'], [16, 'u64']), INVALID_VALUE, /malformed request/],
    ['a symbol of module 7', OP.symbol, fields([7, 'u32'], 'x'), 400, /no module 7/],
    ['host memory in from a range that is not shared', OP.syncIn, fields([1, 'u32'], [ptr, 'u64'], [16, 'u64']), INVALID_VALUE, /16 bytes at 0x[0-9a-f]+ are not inside one shared host allocation/],
    ['a sync-in list cut short', OP.syncIn, fields([1, 'u32'], [ptr, 'u64']), INVALID_VALUE, /malformed request/],
    ['sharing without a descriptor', OP.map, fields([ptr, 'u64'], [4096, 'u64']), INVALID_VALUE, /malformed request/],
  ];
  for (const [what, op, payload, status, line] of cases) {
    const before = s.lines.length;
    const r = await s.call(op, payload);
    expect({ what, status: r?.status }).toEqual({ what, status });
    expect({ what, lines: s.lines.slice(before) }).toEqual({ what, lines: [expect.stringMatching(line)] });
  }
  // nothing shared: nothing written back
  const out = await s.call(OP.syncOut, new Uint8Array(0));
  expect([out?.status, u64At(out!.payload)]).toEqual([0, 0n]);
  // still serving: the memory is as it was
  expect(words((await s.call(OP.read, fields([ptr, 'u64'], [16, 'u64'])))!.payload)).toEqual([1, 2, 3, 4]);
  await s.close();
});

test('a launch request with its host frames appended after the parameters (sanitize\'s backtrace) is accepted', async () => {
  const { s, ptr } = await ready();
  // one frame: u32 count, then u64 offset, u32 path length, u32 symbol length, path, symbol
  const frames = new Uint8Array(fields([1, 'u32'], [0x1460, 'u64'], [5, 'u32'], [4, 'u32'], './app', 'main'));
  expect((await s.call(OP.launch, launch('twice', fields([ptr, 'u64']), frames)))?.status).toBe(0);
  expect(words((await s.call(OP.read, fields([ptr, 'u64'], [16, 'u64'])))!.payload)).toEqual([2, 4, 6, 8]);
  await s.close();
  expect(s.lines).toEqual([]);
});

test('a call site (whole-program recording) is accepted; one whose frames run past its payload is refused and serving goes on', async () => {
  const { s, ptr } = await ready();
  // backtrace.c's frames, then the API function's name
  const site = new Uint8Array(fields([1, 'u32'], [0x1460, 'u64'], [5, 'u32'], [4, 'u32'], './app', 'main', 'cudaMemcpy'));
  expect((await s.call(OP.site, site))?.status).toBe(0);
  expect(s.lines).toEqual([]);
  const r = await s.call(OP.site, site.slice(0, 20));
  expect(r?.status).toBe(INVALID_VALUE);
  expect(s.lines).toEqual([expect.stringMatching(/^ptxdbg: a call site: malformed request/)]);
  expect(words((await s.call(OP.read, fields([ptr, 'u64'], [16, 'u64'])))!.payload)).toEqual([1, 2, 3, 4]);
  await s.close();
});

const withBash = testIf(missingTool('bash') ?? missingTool('cat'));
describe('a bulk copy or a shared range naming a descriptor that is not a memory file', () => {
  let child: ChildProcess;
  let dir: string;
  beforeAll(async () => {
    // a process holding a socket (0), /dev/null (1), a disk file (3), a directory (4) and a pipe
    // (7, from a second cat); both cats end when their stdin closes
    dir = mkdtempSync(join(tmpdir(), 'ptxdbg-wire-'));
    const file = openSync(join(dir, 'f'), 'w+');
    const d = openSync(dir, 'r');
    child = spawn('bash', ['-c', 'exec 7< <(exec cat); exec cat'], { stdio: ['pipe', 'ignore', 'ignore', file, d] });
    await new Promise((r) => child.on('spawn', r));
    closeSync(file);
    closeSync(d);
  });
  afterAll(() => { child.stdin?.end(); child.kill(); rmSync(dir, { recursive: true, force: true }); });

  withBash.each([
    ['a pipe', 7, /file descriptor 7 \(pipe:\[\d+\]\) is not one of the runtime's memory files/],
    ['a socket', 0, /file descriptor 0 \(socket:\[\d+\]\) is not/],
    ['a character device', 1, /file descriptor 1 \(\/dev\/null\) is not/],
    ['a disk file', 3, /file descriptor 3 \(.*\/f\) is not/],
    ['a directory', 4, /file descriptor 4 \(.*ptxdbg-wire-\w+\) is not/],
    ['a closed descriptor', 9, /file descriptor 9 is not open in the program/],
  ])('%s: an error status and one line, both directions', async (_what, fd, line) => {
    const { s, ptr } = await ready(child.pid);
    for (const op of [OP.bulkWrite, OP.bulkRead]) {
      const before = s.lines.length;
      expect((await s.call(op, fields([ptr, 'u64'], [16, 'u64'], [fd, 'u32'])))?.status).toBe(INVALID_VALUE);
      expect(s.lines.slice(before)).toEqual([expect.stringMatching(line)]);
    }
    // nor as the memory file of a pinned allocation
    const pinned = u64At((await s.call(OP.malloc, fields([4096, 'u64'], [2, 'u32'])))!.payload);
    const before = s.lines.length;
    expect((await s.call(OP.map, fields([pinned, 'u64'], [4096, 'u64'], [fd, 'u32'])))?.status).toBe(INVALID_VALUE);
    expect(s.lines.slice(before)).toEqual([expect.stringMatching(line)]);
    expect(words((await s.call(OP.read, fields([ptr, 'u64'], [16, 'u64'])))!.payload)).toEqual([1, 2, 3, 4]);
    await s.close();
  });

  test('without the program\'s process id the bulk path is not supported (the runtime copies through the socket)', async () => {
    const { s, ptr } = await ready(undefined);
    expect((await s.call(OP.bulkWrite, fields([ptr, 'u64'], [16, 'u64'], [3, 'u32'])))?.status).toBe(NOT_SUPPORTED);
    await s.close();
  });
});

test('a frame longer than any request gets an error and ends the connection; what follows is dropped', async () => {
  const { s } = await ready();
  s.send(frame(OP.write, new Uint8Array(8), 2n ** 40n));
  s.send(frame(OP.hello, fields([1, 'u32'])));
  await s.settle();
  expect(s.replies.at(-1)?.status).toBe(INVALID_VALUE);
  expect(s.ended).toBe(true);
  await s.close();
  expect(s.lines).toEqual([expect.stringMatching(/a request of 1099511627776 bytes .*not speaking the ptxdbg runtime protocol; closing the connection/)]);
});

test('a connection closed in the middle of a frame ends the serving with one line', async () => {
  const { s } = await ready();
  s.send(frame(OP.write, new Uint8Array(24)).slice(0, 20));
  await s.close();
  expect(s.lines).toEqual(['ptxdbg: the program\'s connection closed in the middle of a request (20 of 40 bytes); the request is dropped']);
});

test('frames split at every byte and sent back to back are answered in order', async () => {
  const { s, ptr } = await ready();
  const bytes = [frame(OP.read, fields([ptr, 'u64'], [4, 'u64'])), frame(OP.hello, fields([1, 'u32'])), frame(OP.read, fields([ptr + 12n, 'u64'], [4, 'u64']))];
  const all = Uint8Array.from(bytes.flatMap((b) => [...b]));
  const first = s.replies.length;
  for (let i = 0; i < all.length; i++) s.send(all.subarray(i, i + 1));
  await s.settle();
  expect(s.replies.slice(first).map((r) => words(r.payload))).toEqual([[1], [1], [4]]);
  await s.close();
});
