#!/usr/bin/env node
// Outside PTX sweep (issue #28): every .cu of suites nobody here wrote (NVIDIA's cuda-samples,
// Rodinia), compiled by nvcc to PTX twice (-G and -O3 -lineinfo, -arch=sm_80), then
//   1. `ptxdbg check` of every PTX file (both builds): must pass 100 %;
//   2. every entry of the -O3 PTX run under a default launch (`ptxdbg run FILE --kernel K`, the
//      CLI's default grid, block and arguments): each must end ok or in a located fault, never
//      'unsupported', a crash (exit 70) or an unlocated error.
// It fetches nothing and nothing it makes is committed: the suites' code and PTX stay in --work.
//
// Get the suites (any checkout will do; only source files are read), e.g.
//   git clone --depth 1 https://github.com/NVIDIA/cuda-samples /tmp/sweep/cuda-samples
//   git clone --depth 1 https://github.com/yuhc/gpu-rodinia     /tmp/sweep/rodinia
// then, after `npm run build`:
//   nice node scripts/outside-sweep.mjs --work /tmp/sweep \
//     --suite cuda-samples=/tmp/sweep/cuda-samples --suite rodinia=/tmp/sweep/rodinia \
//     [--jobs 2] [--max-steps 2000000] [--timeout 60] [--phase compile|check|run|all] [--only SUBSTR] [--cached] [--in-process] [--report FILE]
// Compiled PTX is cached in WORK/ptx/<suite>/ (nvcc's refusals too, as FILE.failed; delete them
// to recompile); results go to WORK/sweep-PHASE.json and a summary to stdout. --cached: only
// files already compiled, nvcc not run; --phase run needs only the -O3 builds. A file nvcc cannot
// compile here is skipped and counted with nvcc's first error line. CUDA dynamic-parallelism
// files are compiled again with -rdc=true when nvcc asks for separate compilation.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ptxdbg = join(root, 'dist', 'bin', 'ptxdbg.js');

function parseArgs(argv) {
  const o = { work: undefined, suites: [], jobs: 2, maxSteps: 2_000_000, timeout: 60, phase: 'all', only: undefined, cached: false, inProcess: false, report: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--work') o.work = resolve(v());
    else if (a === '--suite') { const [name, dir] = v().split('='); o.suites.push({ name, dir: resolve(dir) }); }
    else if (a === '--jobs') o.jobs = Number(v());
    else if (a === '--max-steps') o.maxSteps = Number(v());
    else if (a === '--timeout') o.timeout = Number(v());
    else if (a === '--phase') o.phase = v();
    else if (a === '--only') o.only = v();
    else if (a === '--cached') o.cached = true;
    else if (a === '--in-process') o.inProcess = true;
    else if (a === '--report') o.report = resolve(v());
    else { console.error(`unknown argument ${a}`); process.exit(2); }
  }
  if (!o.work || o.suites.length === 0) { console.error('usage: outside-sweep.mjs --work DIR --suite NAME=DIR [--suite ...]'); process.exit(2); }
  return o;
}

/** Run a command; resolves with its exit code (or 'timeout'), stdout and stderr. */
function sh(cmd, args, { cwd, timeoutS } = {}) {
  return new Promise((done) => {
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', timedOut = false;
    p.stdout.on('data', (d) => { if (out.length < 1 << 20) out += d; });
    p.stderr.on('data', (d) => { if (err.length < 1 << 20) err += d; });
    const t = timeoutS ? setTimeout(() => { timedOut = true; p.kill('SIGKILL'); }, timeoutS * 1000) : undefined;
    p.on('close', (code) => { if (t) clearTimeout(t); done({ code: timedOut ? 'timeout' : code, out, err }); });
  });
}

/** Map `items` through async `fn`, `jobs` at a time, in order. */
async function pool(items, jobs, fn) {
  const res = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, async () => {
    while (next < items.length) { const i = next++; res[i] = await fn(items[i], i); }
  }));
  return res;
}

function cuFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.cu')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Include folders: the file's, its parent's (and an inc/ there), and every suite's common headers (cuda-samples
 * Common/, which Rodinia's cfd includes as the old SDK's helper_cuda.h; Rodinia common/).
 */
function includes(suites, file) {
  const dirs = [dirname(file), dirname(dirname(file))];
  // cuda-samples keep some headers in an inc/ beside src/ (FDTD3d)
  if (existsSync(join(dirname(dirname(file)), 'inc'))) dirs.push(join(dirname(dirname(file)), 'inc'));
  for (const s of suites) for (const c of ['Common', 'common', 'cuda/common']) if (existsSync(join(s.dir, c))) dirs.push(join(s.dir, c));
  return dirs.flatMap((d) => ['-I', d]);
}

/**
 * CUDA 13 removed cudaThreadSynchronize (deprecated since CUDA 4 for cudaDeviceSynchronize, the
 * same call); Rodinia's host code still calls it. A macro on the command line, not an edit.
 */
const SHIMS = ['-DcudaThreadSynchronize=cudaDeviceSynchronize'];

const BUILDS = { G: ['-G'], O3: ['-O3', '-lineinfo'] };

/** nvcc's first error line, shortened. */
function firstError(text) {
  const line = text.split('\n').find((l) => /error|fatal/i.test(l)) ?? text.split('\n').find((l) => l.trim()) ?? '';
  return line.replace(/^.*?\/(?=[^/]+:\d+)/, '').trim().slice(0, 200);
}

/** Compile `file` for one build (cached); its PTX path, or why nvcc could not. */
async function compileOne(o, suite, file, b) {
  const rel = relative(suite.dir, file);
  const out = `${join(o.work, 'ptx', suite.name, rel.replace(/\.cu$/, ''))}.${b}.ptx`;
  mkdirSync(dirname(out), { recursive: true });
  const failed = `${out}.failed`;
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(file).mtimeMs) return { out };
  // nvcc's refusal is cached too (it takes as long as a compile)
  if (existsSync(failed) && statSync(failed).mtimeMs >= statSync(file).mtimeMs) return { why: readFileSync(failed, 'utf8') };
  if (o.cached) return { why: 'not compiled yet (--cached)' };
  const base = ['-ptx', '-arch=sm_80', '-std=c++17', ...SHIMS, ...BUILDS[b], ...includes(o.suites, file), file, '-o', out];
  let r = await sh('nvcc', base, { cwd: dirname(file), timeoutS: 600 });
  if (r.code !== 0 && /separate compilation|-rdc|relocatable/i.test(r.err)) r = await sh('nvcc', ['-rdc=true', ...base], { cwd: dirname(file), timeoutS: 600 });
  if (r.code !== 0) {
    const why = `nvcc (${b}): ${r.code === 'timeout' ? 'timed out' : firstError(r.err + r.out)}`;
    writeFileSync(failed, why);
    return { why };
  }
  return { out };
}

/**
 * Every file's -O3 build first (what the run sweep needs), then the -G builds of those that
 * compiled: a file nvcc refuses is refused by both, and a short sweep still runs every entry.
 */
async function compileAll(o, all) {
  const res = all.map(({ s, f }) => ({ suite: s.name, file: relative(s.dir, f), ptx: {}, skipped: undefined }));
  await pool(all, o.jobs, async ({ s, f }, i) => {
    const r = await compileOne(o, s, f, 'O3');
    if (r.out) res[i].ptx.O3 = r.out; else res[i].skipped = r.why;
  });
  if (o.phase === 'run') return res; // the run sweep reads the -O3 builds only
  await pool(all, o.jobs, async ({ s, f }, i) => {
    if (res[i].skipped) return;
    const r = await compileOne(o, s, f, 'G');
    if (r.out) res[i].ptx.G = r.out; else { res[i].skipped = r.why; res[i].ptx = {}; }
  });
  return res;
}

/** The entries of a PTX file, read from its text (`.entry NAME(`, `.visible .entry NAME`). */
function entries(ptxPath) {
  const text = readFileSync(ptxPath, 'utf8');
  return [...text.matchAll(/^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$%][\w$%]*)/gm)].map((m) => m[1]);
}

/**
 * --in-process: `check` and `run` as the CLI runs them (its own command functions, the same
 * options and exit codes, stdout and stderr captured), in this one process: on a loaded machine a
 * node start costs more than most runs. An exception is what the CLI reports as exit 70. No
 * timeout applies (--max-steps bounds a run).
 */
let cliFns;
async function inProcess(kind, args) {
  cliFns ??= { run: await import(join(root, 'dist', 'src', 'cli', 'run.js')), check: await import(join(root, 'dist', 'src', 'cli', 'check.js')) };
  let out = '', err = '';
  const ow = process.stdout.write, ew = process.stderr.write;
  process.stdout.write = (d) => { if (out.length < 1 << 16) out += d; return true; };
  process.stderr.write = (d) => { if (err.length < 1 << 16) err += d; return true; };
  let code;
  try {
    code = kind === 'check' ? cliFns.check.checkCommand([args.path]) : cliFns.run.runCommand(args.path, { kernel: args.kernel, maxSteps: args.maxSteps, workers: 1 });
  } catch (e) {
    err += `ptxdbg: internal error: ${e?.stack ?? e}\n`;
    code = 70;
  } finally {
    process.stdout.write = ow;
    process.stderr.write = ew;
  }
  return { code, out, err };
}

/** How a `ptxdbg run` ended: ok, a located fault, a step limit, or something that must be fixed. */
function classifyRun(r) {
  const text = `${r.err}\n${r.out}`;
  if (r.code === 'timeout') return 'timeout';
  if (r.code === 0) return 'ok';
  if (r.code === 70) return 'crash';
  if (/unsupported|not supported/i.test(text)) return 'unsupported';
  // a fault names its place ('at kernel.cu:12 in k, PTX instruction 40: ...'); a load error its line
  const located = /\n\s+at .* PTX instruction \d+/.test(text) || /\.(ptx|cu|cuh|h|hpp):\d+/.test(text);
  if (r.code === 3) {
    if (/step limit reached/.test(text)) return located ? 'step limit' : 'unlocated';
    return located ? 'located fault' : 'unlocated';
  }
  if (r.code === 2) return /bad launch|cannot set up/.test(text) ? 'bad launch' : 'other';
  return located ? 'located error' : 'unlocated';
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  mkdirSync(o.work, { recursive: true });
  const all = o.suites.flatMap((s) => cuFiles(s.dir).filter((f) => !o.only || f.includes(o.only)).map((f) => ({ s, f })));
  const t0 = Date.now();
  const compiled = await compileAll(o, all);
  const report = { suites: {}, checks: [], runs: [], skipped: [] };
  for (const s of o.suites) report.suites[s.name] = { files: compiled.filter((c) => c.suite === s.name).length };
  for (const c of compiled) if (c.skipped) report.skipped.push({ suite: c.suite, file: c.file, why: c.skipped });
  console.log(`compiled: ${compiled.filter((c) => !c.skipped).length}/${compiled.length} files (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  if (o.phase === 'compile') return finish(o, report, compiled);

  const ptx = compiled.flatMap((c) => Object.entries(c.ptx).map(([b, p]) => ({ suite: c.suite, file: c.file, build: b, path: p })));
  if (o.phase === 'all' || o.phase === 'check') {
    report.checks = await pool(ptx, o.jobs, async (x) => {
      const r = o.inProcess ? await inProcess('check', { path: x.path }) : await sh('node', [ptxdbg, 'check', x.path], { timeoutS: o.timeout * 4 });
      return { suite: x.suite, file: x.file, build: x.build, ok: r.code === 0, code: r.code, msg: r.code === 0 ? undefined : (r.err + r.out).trim().split('\n').slice(0, 3).join(' | ') };
    });
  }
  if (o.phase === 'all' || o.phase === 'run') {
    const jobs = ptx.filter((x) => x.build === 'O3').flatMap((x) => {
      const ks = entries(x.path);
      return ks.length === 0 ? [{ ...x, kernel: undefined }] : ks.map((k) => ({ ...x, kernel: k }));
    });
    report.runs = await pool(jobs, o.jobs, async (x) => {
      if (!x.kernel) return { suite: x.suite, file: x.file, kernel: undefined, outcome: 'no entry' };
      const r = o.inProcess
        ? await inProcess('run', { path: x.path, kernel: x.kernel, maxSteps: o.maxSteps })
        : await sh('node', [ptxdbg, 'run', x.path, '--kernel', x.kernel, '--max-steps', String(o.maxSteps), '--workers', '1'], { timeoutS: o.timeout });
      const outcome = classifyRun(r);
      const msg = outcome === 'ok' ? undefined : r.err.trim().split('\n').slice(0, 2).join(' | ').slice(0, 300);
      return { suite: x.suite, file: x.file, kernel: x.kernel, outcome, code: r.code, msg };
    });
  }
  finish(o, report, compiled, t0);
}

function finish(o, report, compiled, t0 = Date.now()) {
  writeFileSync(o.report ?? join(o.work, `sweep-${o.phase}.json`), JSON.stringify(report, null, 1));
  for (const s of Object.keys(report.suites)) {
    const files = compiled.filter((c) => c.suite === s);
    const built = files.filter((c) => !c.skipped).length;
    const checks = report.checks.filter((c) => c.suite === s);
    const runs = report.runs.filter((r) => r.suite === s);
    const by = {};
    for (const r of runs) by[r.outcome] = (by[r.outcome] ?? 0) + 1;
    console.log(`${s}: ${files.length} .cu, ${built} compiled, ${files.length - built} skipped by nvcc; check ${checks.filter((c) => c.ok).length}/${checks.length}; run ${runs.length}: ${Object.entries(by).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  }
  for (const c of report.checks.filter((c) => !c.ok)) console.log(`CHECK FAIL ${c.suite}/${c.file} [${c.build}] (${c.code}): ${c.msg}`);
  const bad = new Set(['unsupported', 'crash', 'unlocated', 'other', 'timeout']);
  for (const r of report.runs.filter((r) => bad.has(r.outcome))) console.log(`RUN ${r.outcome.toUpperCase()} ${r.suite}/${r.file} ${r.kernel} (${r.code}): ${r.msg}`);
  for (const s of report.skipped) console.log(`SKIPPED ${s.suite}/${s.file}: ${s.why}`);
  console.log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

main().catch((e) => { console.error(e); process.exit(70); });
