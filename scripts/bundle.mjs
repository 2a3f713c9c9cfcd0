// Bundles the compiled CLI (dist/src/cli.js) and the worker threads' entry into dist/bin/, the
// installed `ptxdbg` command. Loading one bundle (and a chunk per subcommand) instead of ~150
// modules is a third of a small `ptxdbg run`'s time. Chunks sit next to worker.js, so code that
// starts workers finds it beside itself (src/exec/parallel/pool.ts), bundled or not.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bin');
// yargs's ES module build lays out --help with cliui's ES module build, whose stand-in for
// wrap-ansi cuts lines every N characters, mid-word ("lin/ked" at 80 columns); cliui's CommonJS
// build (the one yargs uses under require) wraps at word boundaries with wrap-ansi.
const cliuiWordWrap = {
  name: 'cliui-word-wrap',
  setup(b) {
    const cjs = createRequire(join(root, 'node_modules', 'yargs', 'package.json')).resolve('cliui');
    b.onResolve({ filter: /^cliui$/ }, () => ({ path: cjs }));
  },
};
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { ptxdbg: join(root, 'dist', 'src', 'cli.js'), worker: join(root, 'dist', 'src', 'exec', 'parallel', 'worker.js'), 'check-worker': join(root, 'dist', 'src', 'cli', 'check-worker.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // ink loads react-devtools-core only when DEV is set: not part of the product
  external: ['react-devtools-core'],
  // bundled CommonJS dependencies call require(); an ES module has none of its own
  banner: { js: "import { createRequire as __ptxdbgRequire } from 'node:module'; const require = __ptxdbgRequire(import.meta.url);" },
  plugins: [cliuiWordWrap],
  logLevel: 'warning',
});
chmodSync(join(out, 'ptxdbg.js'), 0o755);
