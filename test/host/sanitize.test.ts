/**
 * `ptxdbg sanitize`'s records against compute-sanitizer's documentation (the Compute Sanitizer
 * user guide: "Understanding Memcheck Errors", the memcheck_demo, block_error, warp_error and
 * memset_error transcripts, leak checking, API errors, "Specifying Filters", the option table),
 * field by field; addresses of our device window differ from a GPU's, so those fields are
 * checked by their rule (distance from the allocation's last byte, thousands separators).
 * No nvcc needed: faults come from PTX run on the emulated device.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Device, WINDOW_BASE, type LaunchRequest } from '../../src/host/device.js';
import { apiError, bytes, initcheckError, leakError, memcheckError, racecheckAnalysis, racecheckHazard, synccheckError } from '../../src/host/sanitize.js';
import { DEFAULT_SANITIZE, expandName, FilterError, parseFilter, SanitizeSession, type SanitizeOptions } from '../../src/host/sanitizer.js';
import { hostFrameLines } from '../../src/host/backtrace.js';
import { faultingLanes } from '../../src/host/lanes.js';
import { savePages } from '../../src/exec/bank-pages.js';
import { DEFAULT_RUN_OPTIONS, type FaultReport } from '../../src/exec/machine.js';
import type { RaceEntry } from '../../src/races/types.js';
import { fatbin } from './fatbin-fixture.js';

const fault = (over: Partial<FaultReport>): FaultReport => ({
  kind: 'oob', message: 'out-of-bounds global write of 4 bytes at 0x0', block: [0, 0, 0], thread: [0, 0, 0], warp: 0, lane: 0,
  function: '_Z16unaligned_kernelv', pc: 0x100, ptx: 'st.global.u32 [%rd1], %r1;', file: 'memcheck_demo.cu', line: 34,
  space: 'global', address: 0n, callers: [], ...over,
});

describe('memcheck records', () => {
  test('a misaligned write inside a 4-byte allocation, with its launch backtrace (debug-build transcript)', () => {
    const d = new Device();
    const p = d.malloc(4, 'device');
    const lines = memcheckError(fault({ kind: 'misaligned', message: 'misaligned global write of 4 bytes at x', address: p + 1n }), d, [
      { symbol: '_Z13run_unalignedv', offset: 0xacd4n, module: 'memcheck_demo' },
      { symbol: 'main', offset: 0xae61n, module: 'memcheck_demo' },
    ])!;
    expect(lines).toEqual([
      'Invalid __global__ write of size 4 bytes',
      '    at unaligned_kernel()+0x100 in memcheck_demo.cu:34',
      '    by thread (0,0,0) in block (0,0,0)',
      `    Address 0x${(p + 1n).toString(16)} is misaligned`,
      `    and is inside the nearest allocation at 0x${p.toString(16)} of size 4 bytes`,
      '    Saved host backtrace up to driver entry point at kernel launch time',
      '        Host Frame: run_unaligned() [0xacd4] in memcheck_demo',
      '        Host Frame: main [0xae61] in memcheck_demo',
    ]);
  });

  test('a write to 0x87654320 from a device function: distance before the allocation, thousands separators, the device frame', () => {
    const d = new Device();
    const p = d.malloc(1024, 'device');
    const lines = memcheckError(fault({
      kind: 'invalid', message: 'invalid generic address 0x87654320 (write of 4 bytes): not in any memory window', space: 'generic', address: 0x87654320n,
      function: '_Z22out_of_bounds_functionv', pc: 0xb0, line: 39, callers: [{ function: '_Z20out_of_bounds_kernelv', file: 'memcheck_demo.cu', line: 44, pc: 0x30 }],
    }), d, [])!;
    // the documentation's distance is the allocation's address minus the access's
    const before = (p - 0x87654320n).toLocaleString('en-US');
    expect(lines).toEqual([
      'Invalid __global__ write of size 4 bytes',
      '    at out_of_bounds_function()+0xb0 in memcheck_demo.cu:39',
      '    by thread (0,0,0) in block (0,0,0)',
      '    Address 0x87654320 is out of bounds',
      `    and is ${before} bytes before the nearest allocation at 0x${p.toString(16)} of size 1,024 bytes`,
      '    Device Frame: out_of_bounds_kernel()+0x30 in memcheck_demo.cu:44',
    ]);
  });

  test('past the end: counted from the last byte (448-byte allocation, access 0x1e0 in: "33 bytes after")', () => {
    // a captured compute-sanitizer run: allocation at ...000 of size 448, access at ...1e0
    const d = new Device();
    const p = d.malloc(448, 'device');
    const lines = memcheckError(fault({ function: '_Z9oob_writePiii', pc: 0xd, address: p + 0x1e0n }), d, [])!;
    expect(lines[3]).toBe(`    Address 0x${(p + 0x1e0n).toString(16)} is out of bounds`);
    expect(lines[4]).toBe(`    and is 33 bytes after the nearest allocation at 0x${p.toString(16)} of size 448 bytes`);
    expect(lines[1]).toBe('    at oob_write(int *, int, int)+0xd in memcheck_demo.cu:34');
  });

  test('a failed call and a leak, as the documentation prints them', () => {
    expect(apiError({ code: 2, api: 'cudaMalloc', name: 'cudaErrorMemoryAllocation', text: 'out of memory', frames: [] }, []))
      .toEqual(['Program hit cudaErrorMemoryAllocation (error 2) due to "out of memory" on CUDA API call to cudaMalloc.']);
    expect(apiError({ code: 719, api: 'cudaDeviceSynchronize', name: 'cudaErrorLaunchFailure', text: 'unspecified launch failure', frames: [] },
      [{ symbol: 'main', offset: 0x8a03n, module: 'oob_demo' }])).toEqual([
      'Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaDeviceSynchronize.',
      '    Saved host backtrace up to driver entry point at error',
      '        Host Frame: main [0x8a03] in oob_demo',
    ]);
    expect(leakError(0x7879c0800000n, 1024, [])).toEqual(['Leaked 1,024 bytes at 0x7879c0800000']);
    expect(bytes(124310666263776n)).toBe('124,310,666,263,776');
    expect(hostFrameLines([], 'error')).toEqual([]);
  });

  test('initcheck: the memset_error record', () => {
    const lines = initcheckError({ space: 'global', size: 4, function: '_Z9vectorAddPi', pc: 0x70, ptx: '', file: 'memset_error.cu', line: 41, block: [1, 0, 0], thread: [31, 0, 0], address: 0xfc });
    expect(lines).toEqual([
      'Uninitialized __global__ memory read of size 4 bytes',
      '    at vectorAdd(int *)+0x70 in memset_error.cu:41',
      '    by thread (31,0,0) in block (1,0,0)',
      `    Address 0x${(WINDOW_BASE + 0xfcn).toString(16)}`,
    ]);
  });
});

describe('racecheck and synccheck records', () => {
  const access = (op: 'read' | 'write', thread: number, pc: number, line: number, ptx: string, file: string): RaceEntry['accesses'][0] =>
    ({ block: [0, 0, 0], thread: [thread, 0, 0], op, file, line, pc, step: 0, function: '_Z9sumKernelPiS_', ptx, path: `github/compute-sanitizer-samples/Racecheck/${file}` });
  const race = (over: Partial<RaceEntry>): RaceEntry => ({
    kind: 'RAW', space: 'shared', address: 0x8c, variable: null, intraWarp: false, symbol: null, symbolOffset: null, buffer: null, count: 1,
    accesses: [access('write', 35, 0x90, 44, 'st.shared.u32 [%r1], %r2;', 'warp_error.cu'), access('read', 32, 0x120, 56, 'ld.shared.u32 %r3, [%r4];', 'warp_error.cu')],
    ...over,
  });

  test('block_error: the analysis record, 127 threads x 4 bytes = 508 hazards', () => {
    const r = race({
      count: 127,
      accesses: [access('write', 5, 0x90, 41, 'st.shared.u32 [%r1], %r2;', 'block_error.cu'), access('read', 0, 0x100, 51, 'ld.shared.u32 %r3, [%r4];', 'block_error.cu')],
    });
    expect(racecheckAnalysis(r)).toEqual([
      'Error: Race reported between Write access at sumKernel(int *, int *)+0x90 in block_error.cu:41',
      '    and Read access at sumKernel(int *, int *)+0x100 in block_error.cu:51 [508 hazards]',
    ]);
  });

  test('warp_error: a hazard record between lanes of one warp is a warning (warp-level programming)', () => {
    expect(racecheckHazard(race({ intraWarp: true }))).toEqual([
      'Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x8c in block (0,0,0) :',
      '    Write Thread (35,0,0) at sumKernel(int *, int *)+0x90 in warp_error.cu:44',
      '    Read Thread (32,0,0) at sumKernel(int *, int *)+0x120 in warp_error.cu:56',
    ]);
  });

  test('synccheck: the record starts "Barrier error detected. Divergent thread(s) in block."', () => {
    const lines = synccheckError({ kind: 'divergence', block: [0, 0, 0], file: 'test.cu', line: 60, pc: 0xe4, function: '_Z8myKernelPiS_', ptx: 'bar.sync 0;', message: 'warps 0 and 1 reached different barriers' });
    expect(lines.slice(0, 2)).toEqual(['Barrier error detected. Divergent thread(s) in block.', '    at myKernel(int *, int *)+0xe4 in test.cu:60']);
  });
});

describe('the session: options as compute-sanitizer documents them', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ptxdbg-sanitize-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const session = (o: Partial<SanitizeOptions>): SanitizeSession => new SanitizeSession({ ...DEFAULT_SANITIZE, tool: 'memcheck', logFile: join(dir, 'log'), ...o });
  const log = (): string => readFileSync(join(dir, 'log'), 'utf8');

  test('the defaults of the option table', () => {
    expect(DEFAULT_SANITIZE).toMatchObject({ printLimit: 100, errorExitcode: 0, launchSkip: 0, launchCount: 0, printLevel: 'warn', leakCheck: false, racecheckReport: 'analysis', destroyOnDeviceError: 'context' });
  });

  test('"Specifying Filters": each documented way of checking only epsilon', () => {
    const kernels = ['_Z5gammaPi', '_Z5deltaPi', '_Z7epsilonPi'];
    const checked = (o: Partial<SanitizeOptions>): string[] => { const s = session(o); return kernels.filter((k) => s.checks(k)); };
    expect(checked({ kernelName: parseFilter('kne=_Z7epsilonPi') })).toEqual(['_Z7epsilonPi']);
    expect(checked({ kernelName: parseFilter('kns=epsilon') })).toEqual(['_Z7epsilonPi']);
    expect(checked({ kernelNameExclude: parseFilter('kns=delta,kne=_Z5gammaPi') })).toEqual(['_Z7epsilonPi']);
    expect(checked({ kernelNameExclude: [...parseFilter('kns=delta'), ...parseFilter('kne=_Z5gammaPi')] })).toEqual(['_Z7epsilonPi']);
    expect(checked({ kernelName: parseFilter('regex=[a-z]{7}') })).toEqual(['_Z7epsilonPi']);
    expect(() => parseFilter('kxx=1')).toThrow(FilterError);
  });

  test('--launch-skip / --launch-count count only launches that pass the filters', () => {
    const s = session({ kernelName: parseFilter('kns=epsilon'), launchSkip: 1, launchCount: 2 });
    const seq = ['_Z7epsilonPi', '_Z5gammaPi', '_Z7epsilonPi', '_Z7epsilonPi', '_Z5gammaPi', '_Z7epsilonPi'];
    expect(seq.map((k) => s.checks(k))).toEqual([false, false, true, true, false, false]);
  });

  test('--print-limit stops printing, not counting; ERROR SUMMARY counts all', () => {
    const s = session({ printLimit: 2 });
    s.banner();
    for (let i = 0; i < 5; i++) s.record([`error ${i}`]);
    expect(s.finish(0)).toBe(0);
    expect(log()).toBe('========= COMPUTE-SANITIZER\n========= error 0\n=========\n========= error 1\n=========\n========= ERROR SUMMARY: 5 errors\n');
  });

  test('--error-exitcode applies only when the program succeeded; the program\'s own code otherwise', () => {
    const found = (o: Partial<SanitizeOptions>, code: number): number => { const s = session(o); s.record(['x']); return s.finish(code); };
    expect(found({}, 0)).toBe(0);
    expect(found({ errorExitcode: 9 }, 0)).toBe(9);
    expect(found({ errorExitcode: 9 }, 3)).toBe(3);
    expect(session({ errorExitcode: 9 }).finish(0)).toBe(0);
  });

  test('racecheck: RACECHECK SUMMARY counts displayed hazards by severity; --print-level error hides warnings', () => {
    const s = session({ tool: 'racecheck' });
    s.record(['a'], 'error', 'hazard');
    s.record(['b'], 'warn', 'hazard');
    s.finish(0);
    expect(log()).toContain('========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n');
    const t = session({ tool: 'racecheck', printLevel: 'error' });
    t.record(['a'], 'error', 'hazard');
    t.record(['b'], 'warn', 'hazard');
    t.finish(0);
    expect(log()).toBe('========= a\n=========\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n');
  });

  test('--leak-check full: the LEAK SUMMARY line; a failing program is "Target application returned an error"', () => {
    const s = session({ leakCheck: true });
    s.leaks.bytes = 1024; s.leaks.allocations = 1;
    s.record(leakError(0x7879c0800000n, 1024, []));
    s.finish(1);
    expect(log()).toBe('========= Leaked 1,024 bytes at 0x7879c0800000\n=========\n========= Target application returned an error\n'
      + '========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations\n========= ERROR SUMMARY: 1 error\n');
  });

  test('--log-file escapes: %p, %q{VAR}, %%', () => {
    process.env['PTXDBG_TEST_VAR'] = 'v';
    expect(expandName('a-%p-%q{PTXDBG_TEST_VAR}-%q{PTXDBG_NO_SUCH_VAR}-%%')).toBe(`a-${process.pid}-v--%`);
  });
});

describe('every faulting thread (a launch run again with refused accesses noted)', () => {
  // out[tid + 32 * ctaid] = tid for 2 blocks of 32 threads over 16 elements: threads 16-31 of
  // block 0 and all of block 1 fault
  const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry fill(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
`;
  test('48 threads, each once, in lane order per warp; memory afterwards is what the plain run left', () => {
    const d = new Device();
    const m = d.addModule(fatbin(PTX), 'test');
    const buf = d.malloc(64, 'device');
    const params = new Uint8Array(8);
    new DataView(params.buffer).setBigUint64(0, buf, true);
    const r: LaunchRequest = { module: m, kernel: 'fill', grid: [2, 1, 1], block: [32, 1, 1], sharedBytes: 0, params, cooperative: false };
    const before = savePages(d.arena.bank);
    const plain = d.run(r, DEFAULT_RUN_OPTIONS);
    expect(plain.result.fault?.thread).toEqual([16, 0, 0]);
    const afterPlain = Array.from(d.read(buf, 64));
    const lanes = faultingLanes(d, r, DEFAULT_RUN_OPTIONS, before)!;
    const who = lanes.map((f) => `${f.block!.join(',')}/${f.thread![0]}`);
    expect(who).toEqual([...Array.from({ length: 16 }, (_, i) => `0,0,0/${16 + i}`), ...Array.from({ length: 32 }, (_, i) => `1,0,0/${i}`)]);
    // each address: the buffer plus 4 x (32 x block + thread)
    expect(lanes[0]!.address).toBe(buf + 64n);
    expect(lanes[47]!.address).toBe(buf + 4n * 63n);
    expect(Array.from(d.read(buf, 64))).toEqual(afterPlain);
  });
});
