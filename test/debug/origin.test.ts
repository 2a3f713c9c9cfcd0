/**
 * `origin`: where a value came from. samples/origin_flow: thread t loads in[t] = 10*t, adds 1,
 * passes it to twice() (a local array: buf[v&3] = v*2, returned), stores it to shared s[t], and
 * after the barrier writes s[(t+1)%64] to out[t]. So out[5] = 2*(60+1) = 122 came, hop by hop,
 * from thread 5's st.global, its ld.shared of s[6], thread 6's st.shared, the call's return value,
 * twice()'s local array, its parameter, the caller's argument and finally in[6] = 60.
 */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import type { OriginHop } from '../../src/engine/origin.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

function open(): Session {
  const dir = join(ROOT, 'samples', 'origin_flow');
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), interval: 16 });
}

const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

/** PTX text of the hop's instruction, whitespace collapsed. */
const ptx = (s: Session, h: OriginHop): string => s.ptxText.slice(h.instruction.src.span.start, h.instruction.src.span.end).replace(/\s+/g, ' ').trim();

/** Follow the input of the last answer whose text matches `which` (a register name, or 'memory'). */
function follow(s: Session, which: string): OriginHop {
  const h = s.lastOrigin!;
  const i = h.inputs.findIndex((x) => (which === 'memory' ? x.follow?.kind === 'memory' : x.text === which));
  if (i < 0) throw new Error(`no input ${which} in ${h.inputs.map((x) => x.text).join(', ')}`);
  run(s, `origin ^${i + 1}`);
  return s.lastOrigin!;
}

const value = (h: OriginHop, which: string): bigint | undefined => {
  const x = h.inputs.find((i) => (which === 'memory' ? i.follow?.kind === 'memory' : i.text === which))!;
  if (x.bits !== undefined) return x.bits;
  let v = 0n;
  for (let k = x.bytes!.length - 1; k >= 0; k--) v = (v << 8n) | BigInt(x.bytes![k]!);
  return v;
};

test('out[5] is traced hop by hop through shared memory, another thread, a call and local memory to in[6]', () => {
  const s = open();
  run(s, 'break 18 if threadIdx.x == 5');
  run(s, 'continue');
  run(s, 'next');
  expect(run(s, 'print out[5]')).toBe('$1 = 122');

  const out = run(s, 'origin out[5]');
  expect(out).toContain('out[5] (global 0x');
  let h = s.lastOrigin!;
  expect(s.where().thread).toEqual([5, 0, 0]);
  expect(ptx(s, h)).toMatch(/^st\.u32 \[%rd15\], %r9;$/);
  expect(value(h, '%r9')).toBe(122n);

  h = follow(s, '%r9'); // ld of s[(5+1)%64] = shared offset 24
  expect(s.where().thread).toEqual([5, 0, 0]);
  expect(ptx(s, h)).toMatch(/^ld\.u32 %r9,/);
  expect(h.inputs.find((x) => x.follow?.kind === 'memory')!.follow).toMatchObject({ kind: 'memory', target: { space: 'shared', address: 24, size: 4 } });

  h = follow(s, 'memory'); // thread 6 stored s[6]
  expect(s.where().thread).toEqual([6, 0, 0]);
  expect(ptx(s, h)).toMatch(/^st\.u32 \[%rd9\], %r5;$/);
  expect(value(h, '%r5')).toBe(122n);

  h = follow(s, '%r5'); // the call's return value
  expect(ptx(s, h)).toBe('ld.param.b32 %r5, [retval0+0];');
  h = follow(s, 'memory'); // copied by twice()'s ret
  expect(ptx(s, h)).toBe('ret;');
  expect(h.function).toBe('_Z5twicei');
  h = follow(s, 'memory'); // from func_retval0
  expect(ptx(s, h)).toBe('st.param.b32 [func_retval0+0], %r6;');
  h = follow(s, '%r6');
  h = follow(s, '%r5');
  expect(ptx(s, h)).toBe('ld.u32 %r5, [%rd7];');
  h = follow(s, 'memory'); // buf[v & 3] in local memory
  expect(ptx(s, h)).toBe('st.u32 [%rd4], %r2;');
  expect(h.wrote?.space).toBe('local');
  h = follow(s, '%r2');
  expect(ptx(s, h)).toBe('mul.lo.s32 %r2, %r1, 2;');
  expect(value(h, '%r1')).toBe(61n);
  h = follow(s, '%r1');
  expect(ptx(s, h)).toBe('ld.param.u32 %r1, [_Z5twicei_param_0];');
  h = follow(s, 'memory'); // the call copied the argument into twice()'s frame
  expect(ptx(s, h)).toBe('call.uni (retval0), _Z5twicei, ( param0 );');
  h = follow(s, 'memory');
  expect(ptx(s, h)).toBe('st.param.b32 [param0+0], %r4;');
  expect(h.function).toBe('_Z4flowPKiPi');
  h = follow(s, '%r4');
  expect(ptx(s, h)).toBe('add.s32 %r4, %r3, 1;');
  h = follow(s, '%r3');
  expect(ptx(s, h)).toBe('ld.u32 %r3, [%rd5];');
  expect(s.where().thread).toEqual([6, 0, 0]);
  expect(value(h, 'memory')).toBe(60n);
  // in[6] came from the launch: nothing wrote it
  const r = consoleOf(engineOf(s)).execute(`origin ^${h.inputs.findIndex((x) => x.follow?.kind === 'memory') + 1}`);
  expect(r.error).toBe(true);
  expect(r.output).toMatch(/^No write to in\[6\] \(global 0x[0-9a-f]+\) before step \d+: it still holds what it held at launch\.$/);
});

test('a variable that lives in a register is traced by name, and history by name shows its writes', () => {
  const s = open();
  run(s, 'break 16 if threadIdx.x == 3'); // s[t] = b: a = 31, b = 62 for thread 3
  run(s, 'continue');
  expect(run(s, 'print b')).toBe('$1 = 62');
  run(s, 'origin b');
  expect(s.where().thread).toEqual([3, 0, 0]);
  const hist = run(s, 'history a');
  expect(hist).toMatch(/History of a \(in register %r\d+\)/);
  expect(hist).toMatch(/a = 31 \(0x1f\)/);
});
