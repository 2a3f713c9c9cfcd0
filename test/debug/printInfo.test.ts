/**
 * `info locals`, `info args`, `info variables` and the variables tree on samples/vars_structs,
 * and the -O3 build (line info only): registers, specials and casts still work, names do not.
 * Expected values follow kernel.cu and the launch (see print.test.ts).
 */
import { join } from 'node:path';
import { GLOBAL_HI } from '../../src/exec/memory.js';
import { genericOf } from '../../src/engine/threadview.js';
import {
  evaluateExpression, infoArgs, infoLocals, infoVariables, printExpression, PrintError, variableTree, type VarNode,
} from '../../src/engine/print/index.js';
import type { ThreadView } from '../../src/engine/types.js';
import { f32File, loadSample, stopAt, type Loaded, type Stopped } from './printHarness.js';

const s: Loaded = loadSample('vars_structs');
const IN = f32File(join(s.dir, 'in/in.bin'));
const COLORS = ['RED', 'GREEN', 'BLUE'];

function num(x: number): string {
  if (!Number.isInteger(x * 4)) throw new Error(`not a simple value: ${x}`);
  return String(x);
}

function particle(i: number): string {
  const tag = 65 + (i % 26);
  const hist = [0, 1, 2, 3].map((k) => i * k - 3).join(', ');
  return `{id = ${i}, pos = {x = ${num(IN[i]! + 1.5)}, y = ${num(0.5 * i - 2)}}, mass = ${i + 1}, tag = ${tag} '${String.fromCharCode(tag)}', ` +
    `alive = ${i % 3 !== 0}, color = ${COLORS[i % 3]}, flags = ${i & 7}, level = ${i % 32}, hist = {${hist}}}`;
}

function bufferAddress(st: Stopped, name: string): bigint {
  return (BigInt(GLOBAL_HI) << 32n) | BigInt(st.machine.buffers.find((b) => b.name === name)!.alloc.base);
}

const hex = (v: bigint): string => '0x' + v.toString(16);

describe('info at kernel.cu:69, block 0 thread 3', () => {
  const t = 3;
  const i = 3;
  let st: Stopped;
  let v: ThreadView;
  beforeAll(() => {
    st = stopAt(s, { block: [0, 0, 0], thread: t, line: 69 });
    v = st.view();
  });

  test('info locals: grouped by space, innermost first, with values', () => {
    const k = (t + 1) % 64;
    const tileBase = v.symbolAddress('sTile')!.address;
    const local11 = evaluateExpression(s.info, v, 'local[11]');
    const x = IN[i]! + 1.5;
    const bits = new Uint32Array(new Float32Array([x]).buffer)[0]!;
    expect(infoLocals(s.info, v)).toBe([
      '@register:',
      `tid = ${t}`,
      'i = <optimized out>',
      `sp = ${hex(genericOf('shared', tileBase + BigInt(4 * k)))} <sTile+${4 * k}>`,
      `gp = ${hex(bufferAddress(st, 'in') + BigInt(4 * i))}`,
      `lp = ${hex(genericOf('local', local11.address!))}`,
      'r = <optimized out>',
      '@local:',
      `p = ${particle(i)}`,
      `local = {0 <repeats 11 times>, ${i}}`,
      'label = "defghij"',
      `bits = {f = ${num(x)}, u = ${bits}}`,
      'acc = 1',
      '@shared:',
      `sPart = {${Array.from({ length: 8 }, (_, j) => particle(j)).join(', ')}}`,
    ].join('\n'));
  });

  test('info args: kernel params in .param, the struct param in the depot, n in a register', () => {
    expect(infoArgs(s.info, v)).toBe([
      '@register:',
      'n = 128',
      '@local:',
      'origin = {x = 1.5, y = -2}',
      '@param:',
      `in = ${hex(bufferAddress(st, 'in'))}`,
      `out = ${hex(bufferAddress(st, 'out'))}`,
      `outInt = ${hex(bufferAddress(st, 'outInt'))}`,
    ].join('\n'));
  });

  test('info variables: __shared__ (file and kernel scope), __device__, __constant__', () => {
    const tile = Array.from({ length: 64 }, (_, k) => k * k).join(', ');
    expect(infoVariables(s.info, v)).toBe([
      '@shared:',
      `sTile = {${tile}}`,
      `varsKernel::sPart = {${Array.from({ length: 8 }, (_, j) => particle(j)).join(', ')}}`,
      '@global:',
      'gCounter = 7',
      '@const:',
      'cScale = {0.5, 1, 2, 4}',
    ].join('\n'));
    // The kernel-scope static is reachable by that name from any frame.
    const callee = stopAt(s, { block: [0, 0, 0], thread: t, line: 35 }).view();
    expect(printExpression(s.info, callee, 'varsKernel::sPart[2].id')).toBe('$1 = 2');
  });

  test('variable tree: structs and arrays expanded (bounded), pointers dereferenced', () => {
    const tree = variableTree(s.info, v, 4);
    const byName = (xs: readonly VarNode[], n: string): VarNode => {
      const hit = xs.find((x) => x.name === n);
      if (!hit) throw new Error(`no node ${n} in ${xs.map((x) => x.name).join(',')}`);
      return hit;
    };
    // Declaration (DIE) order; each node says where it lives, for the pane to group or tag.
    expect(tree.locals.map((x) => x.name)).toEqual(['p', 'local', 'label', 'bits', 'acc', 'tid', 'i', 'sp', 'gp', 'lp', 'r', 'sPart']);
    const p = byName(tree.locals, 'p');
    expect(p).toMatchObject({ type: 'Particle', space: 'local', value: particle(i) });
    expect(p.children!.map((c) => c.name)).toEqual(['id', 'pos', 'mass', 'tag', 'alive', 'color', 'flags', 'level', 'hist']);
    expect(byName(byName(p.children!, 'pos').children!, 'y')).toMatchObject({ type: 'float', value: num(0.5 * i - 2) });
    expect(byName(p.children!, 'color').value).toBe(COLORS[i % 3]);
    const local = byName(tree.locals, 'local');
    expect(local.children!.map((c) => c.name)).toEqual(['[0]', '[1]', '[2]', '[3]', '...']);
    expect(local.children![4]!.value).toBe('8 more elements');
    const sp = byName(tree.locals, 'sp');
    expect(sp).toMatchObject({ type: 'int *', space: 'register' });
    expect(sp.children).toEqual([{ name: '*sp', type: 'int', space: 'shared', value: String(((t + 1) % 64) ** 2) }]);
    expect(byName(tree.locals, 'i').value).toBe('<optimized out>');
    expect(byName(tree.locals, 'sPart')).toMatchObject({ space: 'shared', type: 'Particle [8]' });
    const inArg = byName(tree.args, 'in');
    expect(inArg).toMatchObject({ space: 'param', type: 'const float *' });
    expect(inArg.children).toEqual([{ name: '*in', type: 'const float', space: 'global', value: num(IN[0]!) }]);
    expect(tree.args.map((x) => x.name)).toEqual(['in', 'out', 'outInt', 'origin', 'n']);
    expect(byName(tree.globals, 'gCounter')).toMatchObject({ value: '7', space: 'global', type: 'int' });
    expect(byName(tree.globals, 'cScale').children!.map((c) => c.value)).toEqual(['0.5', '1', '2', '4']);
    expect(byName(tree.globals, 'varsKernel::sPart').children!.length).toBe(5);
  });

  test('in the callee: its own args and locals; frame 1 is the kernel again', () => {
    const st35 = stopAt(s, { block: [0, 0, 0], thread: t, line: 35 });
    const v0 = st35.view(0);
    const k = (t + 1) % 64;
    const w = Math.fround((IN[i]! + 1.5) * [0.5, 1, 2, 4][k & 3]! + (0.5 * i - 2));
    expect(infoLocals(s.info, v0)).toBe(['@register:', `w = ${num(w)}`, `t = ${k * k}`].join('\n'));
    const args = infoArgs(s.info, v0).split('\n');
    expect(args[0]).toBe('@register:');
    expect(args[1]).toMatch(/^p = 0x7d00[0-9a-f]{8}$/);
    expect(args[2]).toMatch(/^tile = 0x7e00[0-9a-f]{8} <sTile>$/);
    expect(args[3]).toBe(`k = ${k}`);
    expect(args[4]).toMatch(/^acc = 0x7d00[0-9a-f]{8}$/);
    expect(infoLocals(s.info, st35.view(1))).toContain(`p = ${particle(i)}`);
  });

  test('before the kernel scope opens: No locals.', () => {
    const v0 = stopAt(s, { block: [0, 0, 0], thread: 40, pc: 0 }).view();
    expect(infoLocals(s.info, v0)).toBe('No locals.');
    expect(infoArgs(s.info, v0)).toContain('n = <optimized out>');
  });
});

describe('the -O3 build (no DWARF variables)', () => {
  const o = loadSample('vars_structs', 'O3');
  let v: ThreadView;
  beforeAll(() => {
    v = stopAt(o, { block: [0, 0, 0], thread: 3, line: 71 }).view();
  });
  const p = (e: string): string => printExpression(o.info, v, e).replace(/^\$\d+ = /, '');
  const err = (e: string): string => {
    try {
      printExpression(o.info, v, e);
    } catch (x) {
      if (x instanceof PrintError) return x.message;
      throw x;
    }
    throw new Error(`print ${e} did not fail`);
  };

  test('registers, special registers and casts of PTX symbols work', () => {
    expect(p('%tid.x')).toBe('3');
    expect(p('threadIdx.x + blockIdx.x * blockDim.x')).toBe('3');
    expect(p('((@shared int *)&sTile)[5]')).toBe('25');
    expect(p('*(int *)&gCounter')).toBe('7');
    expect(p('((float *)&cScale)[2]')).toBe('2');
    expect(p('(int)sTile')).toBe('0');
    expect(p('&sTile')).toBe('(@shared <data variable, no debug info> *) 0x0');
  });

  test('source names are unknown; PTX symbols need a cast', () => {
    expect(err('p')).toBe('No symbol "p" in current context.');
    expect(err('tid + 1')).toBe('No symbol "tid" in current context.');
    expect(err('sTile')).toBe("'sTile' has unknown type; cast it to its declared type");
    expect(err('sTile[3]')).toBe("'sTile' has unknown type; cast it to its declared type");
    expect(err('gCounter + 1')).toBe("'gCounter' has unknown type; cast it to its declared type");
  });

  test('info commands say there is no symbol table', () => {
    expect(infoLocals(o.info, v)).toBe('No symbol table info available.');
    expect(infoArgs(o.info, v)).toBe('No symbol table info available.');
    expect(infoVariables(o.info, v).split('\n')).toEqual([
      'All defined variables (no debug info; cast them to read, e.g. print *(int *)&name):',
      `gCounter @global ${hex(v.symbolAddress('gCounter')!.address)}, 4 bytes`,
      `cScale @const ${hex(v.symbolAddress('cScale')!.address)}, 16 bytes`,
      `sTile @shared ${hex(v.symbolAddress('sTile')!.address)}, 256 bytes`,
      `_ZZ10varsKernelPKfPfPi4Vec2iE5sPart @shared ${hex(v.symbolAddress('_ZZ10varsKernelPKfPfPi4Vec2iE5sPart')!.address)}, 384 bytes`,
    ]);
    expect(variableTree(o.info, v)).toEqual({ locals: [], args: [], globals: [] });
    expect(o.info.warnings).toEqual([]);
  });
});
