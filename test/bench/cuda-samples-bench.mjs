#!/usr/bin/env node
// cuda-samples under `ptxdbg exec` (issue #29: "runtime-API samples with their default arguments:
// >= 80 of those that build print their pass line within 120 s each"). Not run by jest or
// `npm run bench` (it takes an hour or more): run it by hand after `npm run build`.
//
//   git clone --depth 1 https://github.com/NVIDIA/cuda-samples /tmp/cs
//   node test/bench/cuda-samples-bench.mjs /tmp/cs [--work DIR] [--only NAME,NAME] [--timeout 150]
//        [--cpu-limit 120] [--phase select|build|run|report|all] [--report FILE]
//
// 1. select: every sample folder under Samples/ whose sources use only nvcc and the CUDA runtime
//    (no driver-API cu* calls, NVRTC, graphics interop, MPI, CUDA libraries, multi-GPU/IPC
//    samples, libNVVM or platform-specific folders); the reason for each exclusion is written.
// 2. build: `nvcc -cudart shared -arch=sm_80 -I Common` one sample at a time at nice 10 (OpenMP
//    samples add -fopenmp; a sample nvcc asks to compile separately, dynamic parallelism, is
//    built again with -rdc=true -lcudadevrt; an inc/ folder is on the include path). Binaries are
//    cached in WORK/bin.
// 3. run: each binary from its own folder (some read data files there), one at a time:
//    `/usr/bin/time timeout T nice -n 5 node dist/bin/ptxdbg.js exec -- WORK/bin/NAME`.
//    Pass: exit 0, nothing saying FAIL, and the sample's pass line when its source prints one
//    ("PASS", "passed", ...). Exit 2 is cuda-samples' EXIT_WAIVED (hardware the sample needs).
// Results: WORK/results.json and a markdown table on stdout (wall and CPU seconds, load).
// Nothing here is committed output: the suite's code and binaries stay in --work.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ptxdbg = join(root, 'dist', 'bin', 'ptxdbg.js');

function parseArgs(argv) {
  const o = { cs: undefined, work: '/tmp/cuda-samples-bench', only: undefined, timeout: 150, cpuLimit: undefined, phase: 'all', report: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--work') o.work = resolve(v());
    else if (a === '--only') o.only = new Set(v().split(','));
    else if (a === '--timeout') o.timeout = Number(v());
    else if (a === '--cpu-limit') o.cpuLimit = Number(v());
    else if (a === '--phase') o.phase = v();
    else if (a === '--report') o.report = resolve(v());
    else if (!a.startsWith('--') && !o.cs) o.cs = resolve(a);
    else { console.error(`unknown argument ${a}`); process.exit(2); }
  }
  const usage = 'usage: cuda-samples-bench.mjs CUDA_SAMPLES_CHECKOUT [--work DIR] [--only A,B] [--timeout S] [--cpu-limit S] [--phase select|build|run|report|all] [--report FILE]';
  if (!o.cs) { console.error(usage); process.exit(2); }
  if (!existsSync(join(o.cs, 'Samples'))) { console.error(`cuda-samples-bench: ${o.cs} is not a cuda-samples checkout (it has no Samples/ folder)\n${usage}`); process.exit(2); }
  if (!['select', 'build', 'run', 'report', 'all'].includes(o.phase)) { console.error(`cuda-samples-bench: --phase ${o.phase}: not one of select, build, run, report, all\n${usage}`); process.exit(2); }
  for (const [name, n] of [['--timeout', o.timeout], ['--cpu-limit', o.cpuLimit]]) {
    if (n !== undefined && !(n > 0)) { console.error(`cuda-samples-bench: ${name} needs a number of seconds above 0\n${usage}`); process.exit(2); }
  }
  return o;
}

const SOURCE = /\.(cu|cpp|c|cxx)$/, ANY = /\.(cu|cpp|c|cxx|h|cuh|hpp)$/;
// Driver-API calls: cu + capital, but not cuComplex's cuCmulf/cuCaddf... nor cuda*.
const DRIVER_CALL = /(^|[^\w.])cu(?!C(mul|add|sub|div|abs|real|imag|onj|fma)|Complex|da)(Init|Ctx|Module|Launch|Mem|Device|Graph|Stream|Event|Func|Link|Get|Driver|EGL|Tex|Surf|Import|Signal|Wait|Occupancy|Pointer|Library|Kernel)\w*\s*\(/m;
const EXCLUDE = [
  [/#\s*include\s*[<"](helper_cuda_drvapi|drvapi_error_string)\.h/, 'driver API'],
  [/nvrtc/, 'NVRTC'],
  [/#\s*include\s*[<"](GL\/|GLES|EGL\/|vulkan|d3d|dxgi|GLFW|helper_gl)/, 'graphics interop'],
  [/#\s*include\s*[<"]mpi\.h/, 'MPI'],
  [/#\s*include\s*[<"](cublas|cufft|curand\.h|npp|cusolver|cusparse|nvjpeg|nvvm|cudla|nvsci|nvml)/, 'CUDA library'],
];

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out); else if (ANY.test(e.name)) out.push(p);
  }
  return out;
}

/** Every sample folder with its sources, build flags and (when left out) why. */
function select(cs) {
  const samples = [];
  const top = join(cs, 'Samples');
  for (const cat of readdirSync(top).sort()) {
    if (!statSync(join(top, cat)).isDirectory()) continue;
    for (const name of readdirSync(join(top, cat)).sort()) {
      const dir = join(top, cat, name);
      if (!statSync(dir).isDirectory()) continue;
      const files = walk(dir);
      const srcs = files.filter((f) => SOURCE.test(f) && (dirname(f) === dir || dirname(f) === join(dir, 'src')));
      const text = files.map((f) => readFileSync(f, 'latin1')).join('\n');
      const cmake = existsSync(join(dir, 'CMakeLists.txt')) ? readFileSync(join(dir, 'CMakeLists.txt'), 'latin1') : '';
      let reason;
      if (/^[78]_/.test(cat)) reason = cat;
      else if (/P2P|MultiDevice|MGPU|IPC/.test(name)) reason = 'multi-GPU or multi-process';
      else if (srcs.length === 0) reason = 'no sources';
      else {
        reason = EXCLUDE.find(([re]) => re.test(text))?.[1];
        // driver calls compiled out (deviceQuery's under CUDART_VERSION < 5000) do not count
        const live = text.replace(/#if\s+CUDART_VERSION\s*<\s*5000[\s\S]*?#endif/g, '');
        if (!reason && DRIVER_CALL.test(live)) reason = 'driver API calls';
        if (!reason && /CUDA::(cuda_driver|cublas|cufft|curand|npp|cusolver|cusparse|nvjpeg|nvrtc)|OpenGL|Vulkan|\bMPI\b/.test(cmake)) reason = 'links a library beyond cudart';
      }
      const flags = /omp\.h|fopenmp/.test(text + cmake) ? ['-Xcompiler', '-fopenmp'] : [];
      // a pass line the sample prints: one in a string literal, not a comment
      const passLine = /"[^"\n]*(PASS|[Pp]assed|Result = )[^"\n]*"/.test(srcs.map((f) => readFileSync(f, 'latin1')).join('\n'));
      samples.push({ cat, name, dir, srcs, flags, reason, passLine });
    }
  }
  return samples;
}

function build(s, cs, binDir) {
  const out = join(binDir, s.name);
  if (existsSync(out)) return 'cached';
  // headers in an inc/ beside src/ (FDTD3d)
  const inc = existsSync(join(s.dir, 'inc')) ? [`-I${join(s.dir, 'inc')}`] : [];
  const args = ['-n', '10', 'nvcc', '-cudart', 'shared', '-arch=sm_80', `-I${join(cs, 'Common')}`, ...inc, '-o', out, ...s.srcs, ...s.flags];
  let r = spawnSync('nice', args, { cwd: s.dir, encoding: 'utf8' });
  let how = 'built';
  if (r.status !== 0 && /rdc|relocatable|separate compilation|unresolved extern/.test(r.stderr)) {
    r = spawnSync('nice', [...args, '-rdc=true', '-lcudadevrt'], { cwd: s.dir, encoding: 'utf8' });
    how = 'built -rdc';
  }
  writeFileSync(`${out}.build.log`, `${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.status === 0 ? how : 'build failed';
}

function run(s, binDir, timeout, cpuLimit) {
  const timeFile = join(binDir, `${s.name}.time`);
  const load = loadavg()[0];
  // --cpu-limit: the CPU seconds each process may use (ulimit -S -t: SIGXCPU past it, exit 152), so that a
  // loaded machine's wall time does not decide; the wall limit then only catches a hang
  const cmd = ['timeout', String(timeout), 'nice', '-n', '5', 'node', ptxdbg, 'exec', '--', join(binDir, s.name)];
  const wrapped = cpuLimit ? ['bash', '-c', `ulimit -S -t ${cpuLimit} && exec "$@"`, 'bash', ...cmd] : cmd;
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', timeFile, ...wrapped],
    { cwd: s.dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ''}`, err = `${r.stderr ?? ''}`;
  writeFileSync(join(binDir, `${s.name}.out`), out);
  writeFileSync(join(binDir, `${s.name}.err`), err);
  const t = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const [wall, user, sys] = t.length === 3 ? t : [NaN, NaN, NaN];
  const code = r.status;
  const last = [out, err].join('\n').trim().split('\n').filter((l) => /ptxdbg|error|FAIL|[Ww]aiv|unsupported/i.test(l)).slice(-1)[0] ?? '';
  return { name: s.name, cat: s.cat, result: judge(s, code, out, err), code, wall, cpu: +(user + sys).toFixed(2), load: +load.toFixed(2), note: last.slice(0, 160) };
}

/** pass / fail / timeout / waived from the exit code and what the program printed. */
function judge(s, code, out, err) {
  if (code === 124 || code === 137) return 'timeout';
  if (code === 152) return 'CPU limit';
  if (code === 2 && /[Ww]aiv/.test(out + err)) return 'waived';
  if (code === 0 && !/FAIL/.test(out) && (!s.passLine || /PASS|[Pp]assed|Result = PASS/.test(out))) return 'pass';
  return 'fail';
}

const o = parseArgs(process.argv.slice(2));
mkdirSync(join(o.work, 'bin'), { recursive: true });
const all = select(o.cs).filter((s) => !o.only || o.only.has(s.name));
const chosen = all.filter((s) => !s.reason);
for (const s of all.filter((x) => x.reason)) console.log(`excluded ${s.cat}/${s.name}: ${s.reason}`);
console.log(`${chosen.length} of ${all.length} folders selected`);
if (o.phase === 'select') process.exit(0);
const binDir = join(o.work, 'bin');
// results.json keeps earlier runs' entries (an --only rerun replaces just those samples)
const resultsFile = join(o.work, 'results.json');
let results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : [];
if (o.phase !== 'report') {
  const built = [];
  for (const s of chosen) {
    const how = o.phase === 'run' ? (existsSync(join(binDir, s.name)) ? 'cached' : 'not built') : build(s, o.cs, binDir);
    console.log(`${s.name}: ${how}`);
    if (how !== 'build failed' && how !== 'not built') built.push(s);
  }
  console.log(`${built.length} built`);
  if (o.phase === 'build') process.exit(0);
  for (const s of built) {
    const r = run(s, binDir, o.timeout, o.cpuLimit);
    results = [...results.filter((x) => x.name !== r.name), r];
    console.log(`${r.name}\t${r.result}\texit ${r.code}\t${r.wall} s wall\t${r.cpu} s CPU\tload ${r.load}\t${r.note}`);
    writeFileSync(resultsFile, JSON.stringify(results, null, 1));
  }
} else {
  // judge the stored outputs again (after a change to the rules above), no program is run
  for (const r of results) {
    const s = chosen.find((x) => x.name === r.name);
    if (s) r.result = judge(s, r.code, readFileSync(join(binDir, `${r.name}.out`), 'utf8'), readFileSync(join(binDir, `${r.name}.err`), 'utf8'));
  }
}
const failedBuilds = chosen.filter((s) => existsSync(join(binDir, `${s.name}.build.log`)) && !existsSync(join(binDir, s.name)));
console.log(`${failedBuilds.length} did not build: ${failedBuilds.map((s) => s.name).join(', ')}`);
const ok = results.filter((r) => r.result === 'pass' && r.wall <= 120);
const lines = [`${ok.length} of ${results.length} built samples pass within 120 s wall`, '', '| sample | result | exit | wall s | CPU s | load | note |', '|---|---|---|---|---|---|---|'];
for (const r of results.filter((x) => !ok.includes(x))) lines.push(`| ${r.name} | ${r.result} | ${r.code} | ${r.wall} | ${r.cpu} | ${r.load} | ${r.note.replace(/\|/g, '\\|')} |`);
console.log(lines.join('\n'));
if (o.report) writeFileSync(o.report, lines.join('\n') + '\n');
