// `npm run vsix`: packages the VS Code extension (src/frontends/dap/vscode) into
// dist/ptxdbg-vscode-<version>.vsix with vsce. The extension is staged in dist/vscode/ with the
// project's LICENSE and, where the project's package.json has one, its repository (pointing into
// the extension's folder), so the terms and the source are stated once, at the root.
// vsce is the project's devDependency where installed; otherwise npx fetches @vscode/vsce 3
// (the last major that runs on Node 20).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'frontends', 'dap', 'vscode');
const stage = join(root, 'dist', 'vscode');
rmSync(stage, { recursive: true, force: true });
cpSync(src, stage, { recursive: true });
copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));

const pkg = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8'));
const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const flags = [];
if (project.repository) {
  const repo = typeof project.repository === 'string' ? { type: 'git', url: project.repository } : project.repository;
  pkg.repository = { ...repo, directory: 'src/frontends/dap/vscode' };
  writeFileSync(join(stage, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
} else {
  console.warn('notice: package.json has no "repository": the extension is packaged without one');
  flags.push('--allow-missing-repository');
}

const out = join(root, 'dist', `${pkg.name}-${pkg.version}.vsix`);
const local = join(root, 'node_modules', '.bin', 'vsce');
const [cmd, args] = existsSync(local) ? [local, []] : ['npx', ['--yes', '@vscode/vsce@3']];
const r = spawnSync(cmd, [...args, 'package', '--out', out, ...flags], { cwd: stage, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
console.log(out);
