// Builds (npm run build) only when something the build reads is newer than the last successful
// build, so `npm run sample` right after `npm ci`, and `npm install -g .` (npm runs `prepare` in
// the folder before linking it), open in a second instead of rebuilding for a minute.
// `--stamp` marks a build as done: the build script ends with it, so a failed build leaves the
// old stamp and the next run builds again. `--check` only says whether a build is needed (exit 1).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
// What `npm run build` reads for dist/bin and dist/cudart (the bundle needs only src/; test/ is
// compiled too but only `npm test` and `npm run bench` use it, and both build for themselves).
const inputs = ['src', 'tui', 'dwarf', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** Newest modification time (ms) under a file or folder; 0 when it does not exist. */
function newest(path) {
  let st;
  try { st = statSync(path); } catch { return 0; }
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs; // a deleted file changes its folder's time
  for (const e of readdirSync(path)) m = Math.max(m, newest(join(path, e)));
  return m;
}

function stampTime() {
  try { return statSync(stamp).mtimeMs; } catch { return -1; }
}

const mode = process.argv[2];
if (mode === '--stamp') {
  writeFileSync(stamp, 'built by npm run build; scripts/ensure-built.mjs compares its time with the sources\n');
  process.exit(0);
}
const stale = Math.max(...inputs.map((p) => newest(join(root, p)))) > stampTime();
if (mode === '--check') process.exit(stale ? 1 : 0);
if (stale) {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
