/**
 * `print` at chosen lines of samples/vars_structs (kernel.cu), on the -G build. Expected values
 * come from the kernel's source and the launch (in/in.bin, origin = {1.5, -2.0}, 2 blocks of 64),
 * not from the printer; addresses come from the machine's own layout (symbolAddress, launch
 * buffers) or from pointers the kernel itself computed.
 */
import { join } from 'node:path';
import { GLOBAL_HI } from '../../src/exec/memory.js';
import { genericOf } from '../../src/engine/threadview.js';
import { evaluateExpression, printExpression, PrintError, ValueHistory } from '../../src/engine/print/index.js';
import type { ThreadView } from '../../src/engine/types.js';
import { f32File, loadSample, stopAt, type Loaded, type Stopped } from './printHarness.js';

const s: Loaded = loadSample('vars_structs');
const IN = f32File(join(s.dir, 'in/in.bin'));
const ORIGIN = { x: 1.5, y: -2 };
const SCALE = [0.5, 1, 2, 4];
const COLORS = ['RED', 'GREEN', 'BLUE'];
const COLOR_VALUE = [0, 5, 6];
const BLOCK = 64;

/** Every float of this kernel is a small multiple of 1/4: JS and gdb's %g print them alike. */
function num(x: number): string {
  if (!Number.isInteger(x * 4) || Math.abs(x) > 1e6) throw new Error(`not a simple value: ${x}`);
  return String(x);
}

function hex(v: bigint): string {
  return '0x' + v.toString(16);
}

/** What the kernel stores in Particle p of global thread i (lines 45-54). */
function particle(i: number): string {
  const x = IN[i]! + ORIGIN.x;
  const y = 0.5 * i + ORIGIN.y;
  const tag = 65 + (i % 26);
  const hist = [0, 1, 2, 3].map((k) => i * k - 3).join(', ');
  return `{id = ${i}, pos = {x = ${num(x)}, y = ${num(y)}}, mass = ${i + 1}, tag = ${tag} '${String.fromCharCode(tag)}', ` +
    `alive = ${i % 3 !== 0}, color = ${COLORS[i % 3]}, flags = ${i & 7}, level = ${i % 32}, hist = {${hist}}}`;
}

function label(i: number): string {
  return Array.from({ length: 7 }, (_, k) => String.fromCharCode(97 + ((i + k) % 26))).join('');
}

function p(view: ThreadView, expr: string, h?: ValueHistory): string {
  return printExpression(s.info, view, expr, h).replace(/^\$\d+ = /, '');
}

function err(view: ThreadView, expr: string): string {
  try {
    printExpression(s.info, view, expr);
  } catch (e) {
    if (e instanceof PrintError) return e.message;
    throw e;
  }
  throw new Error(`print ${expr} did not fail`);
}

describe('print at kernel.cu:69 (before the weigh() call), block 1 thread 5', () => {
  const b = 1;
  const t = 5;
  const i = b * BLOCK + t;
  let st: Stopped;
  let v: ThreadView;
  beforeAll(() => {
    st = stopAt(s, { block: [b, 0, 0], thread: t, line: 69 });
    v = st.view();
  });

  test('locals: struct in the local depot, arrays, char string, union, float', () => {
    expect(p(v, 'p')).toBe(particle(i));
    expect(p(v, 'tid')).toBe(String(t));
    expect(p(v, 'local')).toBe(`{0 <repeats 11 times>, ${i}}`);
    expect(p(v, 'label')).toBe(`"${label(i)}"`);
    const x = IN[i]! + ORIGIN.x;
    const bits = new Uint32Array(new Float32Array([x]).buffer)[0]!;
    expect(p(v, 'bits')).toBe(`{f = ${num(x)}, u = ${bits}}`);
    expect(p(v, 'acc')).toBe('1');
  });

  test('struct members, nested members, bit fields, enums, chars, bools', () => {
    expect(p(v, 'p.id')).toBe(String(i));
    expect(p(v, 'p.pos')).toBe(`{x = ${num(IN[i]! + 1.5)}, y = ${num(0.5 * i - 2)}}`);
    expect(p(v, 'p.pos.y')).toBe(num(0.5 * i - 2));
    expect(p(v, 'p.mass')).toBe(String(i + 1));
    expect(p(v, 'p.flags')).toBe(String(i & 7));
    expect(p(v, 'p.level')).toBe(String(i % 32));
    expect(p(v, 'p.color')).toBe(COLORS[i % 3]);
    expect(p(v, 'p.tag')).toBe(`${65 + (i % 26)} '${String.fromCharCode(65 + (i % 26))}'`);
    expect(p(v, 'p.alive')).toBe(String(i % 3 !== 0));
    expect(p(v, 'p.hist[3]')).toBe(String(3 * i - 3));
    expect(p(v, 'p.hist[1] + p.hist[2]')).toBe(String(i - 3 + 2 * i - 3));
    expect(p(v, 'sizeof(p)')).toBe('48');
    expect(p(v, 'sizeof p.hist')).toBe('8');
    expect(p(v, 'label[2]')).toBe(`${97 + ((i + 2) % 26)} '${String.fromCharCode(97 + ((i + 2) % 26))}'`);
  });

  test('parameters: kernel params in .param, the struct param copied to the depot', () => {
    const inBase = st.machine.buffers.find((x) => x.name === 'in')!.alloc.base;
    const inAddr = (BigInt(GLOBAL_HI) << 32n) | BigInt(inBase);
    expect(p(v, 'in')).toBe(`(const float *) ${hex(inAddr)}`);
    expect(p(v, 'n')).toBe('128');
    expect(p(v, 'origin')).toBe('{x = 1.5, y = -2}');
    expect(p(v, 'in[3]')).toBe(num(IN[3]!));
    expect(p(v, 'in[0]@3')).toBe(`{${[0, 1, 2].map((k) => num(IN[k]!)).join(', ')}}`);
    expect(p(v, '*in@2')).toBe(`{${num(IN[0]!)}, ${num(IN[1]!)}}`);
  });

  test('shared arrays: file-scope int[64] and the kernel-scope Particle[8]', () => {
    const tile = Array.from({ length: 64 }, (_, k) => (b * BLOCK + k) ** 2);
    expect(p(v, 'sTile')).toBe(`{${tile.join(', ')}}`);
    expect(p(v, 'sTile[7]')).toBe(String(tile[7]));
    expect(p(v, 'sPart[2]')).toBe(particle(b * BLOCK + 2));
    expect(p(v, 'sPart[tid].pos.x')).toBe(num(IN[i]! + 1.5));
    const base = v.symbolAddress('sTile')!;
    expect(base.space).toBe('shared');
    expect(p(v, '&sTile[2]')).toBe(`(@shared int *) ${hex(base.address + 8n)} <sTile+8>`);
    expect(p(v, '&sTile')).toBe(`(@shared int (*)[64]) ${hex(base.address)} <sTile>`);
  });

  test('pointers into shared, global and local memory, computed by the kernel', () => {
    const k = (t + 1) % 64;
    const base = v.symbolAddress('sTile')!.address;
    expect(p(v, 'sp')).toBe(`(int *) ${hex(genericOf('shared', base + BigInt(4 * k)))} <sTile+${4 * k}>`);
    expect(p(v, '*sp')).toBe(String((b * BLOCK + k) ** 2));
    expect(p(v, 'sp[-1]')).toBe(String((b * BLOCK + k - 1) ** 2));
    expect(p(v, 'sp == &sTile[(tid + 1) % 64]')).toBe('true');
    expect(p(v, '*gp')).toBe(num(IN[i]!));
    expect(p(v, 'gp - in')).toBe(String(i));
    expect(p(v, 'gp == in + tid + 64 * blockIdx.x')).toBe('true');
    expect(p(v, '*lp')).toBe(String(i));
    expect(p(v, 'lp == &local[11]')).toBe('true');
    // The kernel's own generic pointer (cvta.local) equals the DWARF location of local[11].
    const loc = evaluateExpression(s.info, v, 'local[11]');
    expect(loc.space).toBe('local');
    const lp = evaluateExpression(s.info, v, 'lp');
    expect(new DataView(lp.bytes!.buffer, lp.bytes!.byteOffset).getBigUint64(0, true)).toBe(genericOf('local', loc.address!));
    expect(p(v, '&p')).toMatch(/^\(@local Particle \*\) 0x[0-9a-f]+$/);
    expect(p(v, '(&p)->pos.x')).toBe(num(IN[i]! + 1.5));
    expect(p(v, '&p.pos')).toMatch(/^\(@local Vec2 \*\) 0x/);
  });

  test('casts with cuda-gdb address spaces', () => {
    const base = v.symbolAddress('sTile')!.address;
    expect(p(v, `*(@shared int *)${hex(base + 12n)}`)).toBe(String((b * BLOCK + 3) ** 2));
    expect(p(v, `*(@shared int *) ${base + 16n}`)).toBe(String((b * BLOCK + 4) ** 2));
    expect(p(v, `((@shared int *)${hex(base)})[10]`)).toBe(String((b * BLOCK + 10) ** 2));
    expect(p(v, '(@generic int *)&sTile[1]')).toBe(`(int *) ${hex(genericOf('shared', base + 4n))} <sTile+4>`);
    expect(p(v, '*(@generic int *)&sTile[1]')).toBe(String((b * BLOCK + 1) ** 2));
    expect(p(v, '(@shared int *)sp')).toBe(`(@shared int *) ${hex(base + BigInt(4 * ((t + 1) % 64)))} <sTile+${4 * ((t + 1) % 64)}>`);
    const inBase = st.machine.buffers.find((x) => x.name === 'in')!.alloc.base;
    const inAddr = (BigInt(GLOBAL_HI) << 32n) | BigInt(inBase);
    expect(p(v, `*(@global float *)${hex(inAddr + 4n * BigInt(i))}`)).toBe(num(IN[i]!));
    expect(p(v, '*(@global float *)gp')).toBe(num(IN[i]!));
    const depot = v.symbolAddress('__local_depot1')!;
    expect(depot.space).toBe('local');
    const acc = evaluateExpression(s.info, v, 'acc');
    expect(p(v, `*(@local float *)${hex(acc.address!)}`)).toBe('1');
    const origin = evaluateExpression(s.info, v, 'origin');
    expect(p(v, `((@local float *)${origin.address!})[1]`)).toBe('-2');
    const param = v.symbolAddress('_Z10varsKernelPKfPfPi4Vec2i_param_4')!;
    expect(param.space).toBe('param');
    expect(p(v, `*(@param int *)${param.address}`)).toBe('128');
    expect(p(v, '(char)p.id')).toBe(`${i} '${String.fromCharCode(i)}'`);
    expect(p(v, '(int)p.pos.y')).toBe(String(Math.trunc(0.5 * i - 2)));
    expect(p(v, '(Color)6')).toBe('BLUE');
    expect(p(v, '(Color)5')).toBe('GREEN');
    expect(p(v, '(Color)7')).toBe('7');
    expect(p(v, 'p.color == ' + COLORS[i % 3])).toBe('true');
    expect(p(v, '(int)p.color')).toBe(String(COLOR_VALUE[i % 3]));
    expect(p(v, '(u32)-1')).toBe('4294967295');
    // A C cast to a generic pointer converts the address like cvta.local does.
    expect(p(v, '(struct Vec2 *)&p.pos')).toMatch(/^\(Vec2 \*\) 0x7d00[0-9a-f]{8}$/);
    expect(p(v, '*(struct Vec2 *)&p.pos')).toBe(`{x = ${num(IN[i]! + 1.5)}, y = ${num(0.5 * i - 2)}}`);
    expect(p(v, '(@local int *)lp == &local[11]')).toBe('true');
    expect(p(v, '((Vec2 *)gp)->x')).toBe(num(IN[i]!));
    expect(p(v, '*(Particle *)&sPart[3]')).toBe(particle(b * BLOCK + 3));
  });

  test('registers and special registers', () => {
    expect(p(v, '$tid.x')).toBe(String(t));
    expect(p(v, '%tid.x')).toBe(String(t));
    expect(p(v, '$ctaid.x')).toBe(String(b));
    expect(p(v, '%ntid.x')).toBe('64');
    expect(p(v, '$nctaid.x')).toBe('2');
    expect(p(v, 'threadIdx.x')).toBe(String(t));
    expect(p(v, 'threadIdx')).toBe(`{x = ${t}, y = 0, z = 0}`);
    expect(p(v, 'blockIdx')).toBe(`{x = ${b}, y = 0, z = 0}`);
    expect(p(v, 'blockDim')).toBe('{x = 64, y = 1, z = 1}');
    expect(p(v, 'gridDim.x')).toBe('2');
    expect(p(v, 'warpSize')).toBe('32');
    expect(p(v, '$laneid')).toBe(String(t % 32));
    expect(p(v, 'blockIdx.x * blockDim.x + threadIdx.x')).toBe(String(i));
    // tid lives in %r1 (DWARF); the register and the variable agree.
    expect(p(v, '$r1')).toBe(String(t));
    expect(p(v, '%r1 == tid')).toBe('true');
    expect(p(v, '$r1 % 2')).toBe(String(t % 2));
    expect(err(v, 'tid %r1')).toBe('No symbol "r1" in current context.'); // `%` between operands is the remainder
    expect(err(v, '$nosuch')).toBe('Invalid register or special register "$nosuch".');
  });

  test('integer arithmetic, comparisons, logic and sizeof', () => {
    expect(p(v, '1 + 2 * 3')).toBe('7');
    expect(p(v, '(1 + 2) * 3')).toBe('9');
    expect(p(v, '-7 / 2')).toBe('-3');
    expect(p(v, '-7 % 3')).toBe('-1');
    expect(p(v, '1 << 4 | 3')).toBe('19');
    expect(p(v, '0xff >> 4 & 0x7')).toBe('7');
    expect(p(v, '5 ^ 3')).toBe('6');
    expect(p(v, '~5')).toBe('-6');
    expect(p(v, '-tid')).toBe(String(-t));
    expect(p(v, '!0')).toBe('true');
    expect(p(v, '!tid')).toBe('false');
    expect(p(v, 'tid > 3 && tid < 10')).toBe('true');
    expect(p(v, 'tid == 4 || tid != 5')).toBe('false');
    expect(p(v, '-1 < 0u')).toBe('false');
    expect(p(v, '1u - 2')).toBe('4294967295');
    expect(p(v, '2147483647 + 1')).toBe('-2147483648');
    expect(p(v, '(long)1 << 40')).toBe('1099511627776');
    expect(p(v, '0x10 + 010')).toBe('24');
    expect(p(v, "'A' + 1")).toBe('66');
    expect(p(v, 'tid ? 10 : 20')).toBe('10');
    expect(p(v, 'sizeof(int)')).toBe('4');
    expect(p(v, 'sizeof(Particle)')).toBe('48');
    expect(p(v, 'sizeof(struct Vec2) * 2')).toBe('16');
    expect(p(v, 'sizeof(sTile) / sizeof(sTile[0])')).toBe('64');
    expect(p(v, 'p.pos.x * 2')).toBe(num(2 * (IN[i]! + 1.5)));
    expect(p(v, '(float)1 / 3')).toBe('0.333333343');
    expect(p(v, '1.0 / 3')).toBe('0.33333333333333331');
    expect(p(v, 'GREEN + 1')).toBe('6');
    expect(err(v, '10 / 0')).toBe('Division by zero');
    expect(err(v, '10 % (tid - tid)')).toBe('Division by zero');
  });

  test('value history: $N, $, $$, $$N', () => {
    const h = new ValueHistory();
    expect(printExpression(s.info, v, 'p', h)).toBe(`$1 = ${particle(i)}`);
    expect(printExpression(s.info, v, 'tid * 2', h)).toBe(`$2 = ${2 * t}`);
    expect(printExpression(s.info, v, '$1.pos', h)).toBe(`$3 = {x = ${num(IN[i]! + 1.5)}, y = ${num(0.5 * i - 2)}}`);
    expect(printExpression(s.info, v, '$ ', h)).toMatch(/^\$4 = \{x = /);
    expect(printExpression(s.info, v, '$$2 + 1', h)).toBe(`$5 = ${2 * t + 1}`);
    expect(printExpression(s.info, v, '$1.hist[2] + $2', h)).toBe(`$6 = ${2 * i - 3 + 2 * t}`);
    expect(() => printExpression(s.info, v, '$9', h)).toThrow('History has not yet reached $9.');
    expect(() => printExpression(s.info, v, '$$20', h)).toThrow('History does not go back to $$20.');
    expect(() => printExpression(s.info, v, '$', new ValueHistory())).toThrow('History is empty.');
  });

  test('print/FMT', () => {
    expect(p(v, '/x 255')).toBe('0xff');
    expect(p(v, '/x -1')).toBe('0xffffffff');
    expect(p(v, '/x p.hist')).toBe(`{0xfffd, ${[1, 2, 3].map((k) => '0x' + (i * k - 3).toString(16)).join(', ')}}`);
    expect(p(v, '/o 8')).toBe('010');
    expect(p(v, '/t 5')).toBe('101');
    expect(p(v, '/d (unsigned char)200')).toBe('-56');
    expect(p(v, '/c 65')).toBe("65 'A'");
    expect(p(v, '/x 1.5')).toBe('0x3ff8000000000000');
    expect(() => p(v, '/q 1')).toThrow('Undefined output format "q".');
  });

  test('optimized out and out-of-scope names', () => {
    // nvcc's location list for i ends before this line (kernel.cu:43 stores i in %r2, %r77).
    expect(p(v, 'i')).toBe('<optimized out>');
    expect(err(v, 'i + 1')).toBe('value has been optimized out');
    // r is assigned by this very line: its register has not been written yet.
    expect(p(v, 'r')).toBe('<optimized out>');
    expect(err(v, 'k')).toBe('No symbol "k" in current context.');
    expect(err(v, 'w')).toBe('No symbol "w" in current context.');
  });

  test("errors in gdb's words", () => {
    expect(err(v, 'nosuch')).toBe('No symbol "nosuch" in current context.');
    expect(err(v, 'p.nosuch')).toBe('There is no member named nosuch.');
    expect(err(v, 'tid.x')).toBe('Attempt to extract a component of a value that is not a structure.');
    expect(err(v, '*5')).toBe('Cannot access memory at address 0x5');
    expect(err(v, '&5')).toBe('Attempt to take address of value not located in memory.');
    expect(err(v, '&tid')).toBe('Address requested for a value in register %r1.');
    expect(err(v, '&p.flags')).toBe('Attempt to take address of value not located in memory.');
    expect(err(v, '*tid + *')).toMatch(/^A syntax error in expression, near `'\.$/);
    expect(err(v, '1 +')).toMatch(/^A syntax error/);
    expect(err(v, 'tid = 3')).toMatch(/Assignment is not supported/);
    expect(err(v, 'tid++')).toMatch(/not supported|syntax error/);
    expect(err(v, 'weigh(1)')).toMatch(/Calling functions is not supported/);
    expect(err(v, '(@nowhere int *)0')).toMatch(/Unknown address space "@nowhere"/);
    expect(err(v, '(@shared int)0')).toMatch(/needs a pointer type/);
    expect(err(v, '(struct Nope *)0')).toBe('No struct type named Nope.');
    expect(err(v, '')).toBe('Argument required (expression to compute).');
    expect(err(v, '*(@shared int *)0x100000')).toBe('Cannot access memory at address 0x100000 (@shared)');
    expect(err(v, '*(Particle *)0')).toBe('Cannot access memory at address 0x0');
    expect(err(v, '*(@shared Particle *)0x1000')).toBe('Cannot access memory at address 0x1000 (@shared)');
  });

  test('evaluateExpression gives lvalue space, address and size for watch', () => {
    const base = v.symbolAddress('sTile')!.address;
    const k = (t + 1) % 64;
    expect(evaluateExpression(s.info, v, 'sTile[3]')).toMatchObject({ type: 'int', space: 'shared', address: base + 12n, size: 4, text: String((b * BLOCK + 3) ** 2) });
    // Through the kernel's generic pointer: resolved to the shared window.
    expect(evaluateExpression(s.info, v, '*sp')).toMatchObject({ space: 'shared', address: base + BigInt(4 * k), size: 4 });
    expect(evaluateExpression(s.info, v, 'p.pos')).toMatchObject({ type: 'Vec2', space: 'local', size: 8 });
    const g = evaluateExpression(s.info, v, 'gCounter');
    expect(g).toMatchObject({ space: 'global', size: 4, text: '7' });
    expect(g.address).toBe(v.symbolAddress('gCounter')!.address);
    expect(evaluateExpression(s.info, v, '*gp')).toMatchObject({ space: 'global', size: 4 });
    const r = evaluateExpression(s.info, v, 'tid');
    expect(r.address).toBeUndefined();
    expect(r.bytes).toEqual(new Uint8Array([t, 0, 0, 0]));
    expect(evaluateExpression(s.info, v, 'p.flags').address).toBeUndefined();
    expect(evaluateExpression(s.info, v, 'sPart')).toMatchObject({ type: 'Particle [8]', space: 'shared', size: 384 });
  });

  test('globals: __device__ and __constant__', () => {
    expect(p(v, 'gCounter')).toBe('7');
    expect(p(v, 'cScale')).toBe(`{${SCALE.join(', ')}}`);
    expect(p(v, 'cScale[3] * 2')).toBe('8');
    expect(p(v, '&cScale[1]')).toMatch(/^\(@const float \*\) 0x[0-9a-f]+ <cScale\+4>$/);
    expect(p(v, '&gCounter')).toBe(`(@global int *) ${hex(v.symbolAddress('gCounter')!.address)} <gCounter>`);
  });
});

describe('repeats and element limits', () => {
  let v: ThreadView;
  beforeAll(() => {
    v = stopAt(s, { block: [0, 0, 0], thread: 3, line: 69 }).view();
  });

  test('gdb collapses runs longer than 10 elements', () => {
    expect(p(v, 'local[0]@10')).toBe('{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}');
    expect(p(v, 'local[0]@11')).toBe('{0 <repeats 11 times>}');
    expect(p(v, 'local')).toBe('{0 <repeats 11 times>, 3}');
  });

  test('at most 200 elements, then ...', () => {
    const shorts = new Int16Array(IN.buffer, IN.byteOffset, 256);
    const text = p(v, '*(short (*)[250])in');
    expect(text.endsWith('...}')).toBe(true);
    const items = text.slice(1, -4).split(', ');
    // No run of more than 10 equal shorts in these inputs, so 200 items exactly.
    expect(text).not.toContain('repeats');
    expect(items.length).toBe(200);
    expect(items.slice(0, 6)).toEqual(Array.from(shorts.slice(0, 6), String));
  });

  test('strings: char arrays and char pointers', () => {
    expect(p(v, 'label')).toBe(`"${label(3)}"`);
    // char pointers print their string and no type, like gdb.
    expect(p(v, '&label[0]')).toMatch(new RegExp(`^0x[0-9a-f]+ "${label(3)}"$`));
    expect(p(v, '(char *)&label[2]')).toMatch(new RegExp(`^0x7d[0-9a-f]+ "${label(3).slice(2)}"$`));
    expect(p(v, 'label[0]@3')).toBe(`"${label(3).slice(0, 3)}"`);
  });
});

describe('the weigh() frame (kernel.cu:35) and its caller', () => {
  const t = 3;
  const i = t;
  const k = (t + 1) % 64;
  const x = IN[i]! + ORIGIN.x;
  const y = 0.5 * i + ORIGIN.y;
  const w = Math.fround(x * SCALE[k & 3]! + y);
  let st: Stopped;
  beforeAll(() => {
    st = stopAt(s, { block: [0, 0, 0], thread: t, line: 35 });
  });

  test('arguments are pointers into local, shared and local memory of the caller', () => {
    const v = st.view();
    expect(v.function).toBe('_Z5weighPK8ParticlePKiiPf');
    expect(p(v, '*p')).toBe(particle(i));
    expect(p(v, 'p->pos.x')).toBe(num(x));
    expect(p(v, 'p->hist[3]')).toBe(String(3 * i - 3));
    expect(p(v, 'p.mass')).toBe(String(i + 1)); // gdb lets . dereference a pointer
    expect(p(v, 'k')).toBe(String(k));
    expect(p(v, 'tile[k]')).toBe(String(k * k));
    expect(p(v, 'tile')).toMatch(/^\(const int \*\) 0x7e[0-9a-f]+ <sTile>$/);
    expect(p(v, '*acc')).toBe('1');
    expect(p(v, 'cScale[k & 3]')).toBe(String(SCALE[k & 3]));
    expect(p(v, 'w')).toBe(num(w));
    expect(p(v, 't')).toBe(String(k * k));
    expect(p(v, 'w * (float)p->mass')).toBe(num(Math.fround(w * (i + 1))));
    expect(err(v, 'tid')).toBe('No symbol "tid" in current context.');
  });

  test('the caller frame sees its own variables; the callee pointers point at them', () => {
    const v0 = st.view(0);
    const v1 = st.view(1);
    expect(v1.function).toBe('_Z10varsKernelPKfPfPi4Vec2i');
    expect(() => printExpression(s.info, v0, 'local')).toThrow('No symbol "local" in current context.');
    expect(p(v1, 'tid')).toBe(String(t));
    expect(p(v1, 'acc')).toBe('1');
    const accInCaller = evaluateExpression(s.info, v1, 'acc');
    const accViaPointer = evaluateExpression(s.info, v0, '*acc');
    expect(accViaPointer.space).toBe('local');
    expect(accViaPointer.address).toBe(accInCaller.address);
    expect(evaluateExpression(s.info, v0, '*p').address).toBe(evaluateExpression(s.info, v1, 'p').address);
    expect(p(v0, 'p != 0 && tile != 0')).toBe('true');
    expect(() => printExpression(s.info, v0, 'sPart')).toThrow('No symbol "sPart" in current context.');
    expect(p(v1, 'sPart[3].id')).toBe('3');
  });
});

describe('after the call (kernel.cu:70)', () => {
  test('r and acc hold what weigh() computed', () => {
    for (const [b, t] of [[0, 3], [1, 40]] as const) {
      const v = stopAt(s, { block: [b, 0, 0], thread: t, line: 70 }).view();
      const i = b * BLOCK + t;
      const k = (t + 1) % 64;
      const x = IN[i]! + ORIGIN.x;
      const y = 0.5 * i + ORIGIN.y;
      const w = Math.fround(x * SCALE[k & 3]! + y);
      const tile = (b * BLOCK + k) ** 2;
      expect(p(v, 'r')).toBe(num(Math.fround(w * (i + 1))));
      expect(p(v, 'acc')).toBe(num(Math.fround(1 + Math.fround(w + tile))));
      expect(p(v, 'r + acc + *gp')).toBe(num(Math.fround(Math.fround(Math.fround(w * (i + 1)) + Math.fround(1 + w + tile)) + IN[i]!)));
    }
  });
});

describe('scope at the first instructions', () => {
  test('before the lexical block only the parameters are visible; unwritten registers are not shown', () => {
    // Thread 40 (warp 1) at instruction 0 of the kernel.
    const v = stopAt(s, { block: [0, 0, 0], thread: 40, pc: 0 }).view();
    expect(v.pc).toBe(0);
    expect(err(v, 'p')).toBe('No symbol "p" in current context.');
    expect(p(v, 'n')).toBe('<optimized out>'); // %r13 is loaded from the .param a few instructions later
    expect(p(v, 'origin')).toMatch(/^\{x = /); // in the depot: memory, readable at any time
    expect(p(v, 'threadIdx.x')).toBe('40');
  });
});
