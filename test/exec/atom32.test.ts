/**
 * 32-bit integer atomics through a register address have a code path of their own (memops.ts
 * atom32); a variable's address takes the general one. Both forms on the same values, lane after
 * lane on one word, must agree on every old value and on the final word.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

const FORMS = [
  ['add', 'u32'], ['add', 's32'], ['min', 'u32'], ['min', 's32'], ['max', 'u32'], ['max', 's32'],
  ['inc', 'u32'], ['dec', 'u32'], ['and', 'b32'], ['or', 'b32'], ['xor', 'b32'], ['exch', 'b32'], ['cas', 'b32'],
] as const;

function ptx(op: string, type: string): string {
  const c = op === 'cas' ? ', %r4' : '';
  return `
.version 7.0
.target sm_80
.address_size 64
.shared .align 4 .u32 w0;
.shared .align 4 .u32 w1;
.visible .entry t(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .u32 %r<12>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd1];
  ld.global.u32 %r3, [%rd4+4];
  ld.global.u32 %r4, [%rd4+132];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [w0], %r2;
  @%p1 st.shared.u32 [w1], %r2;
  bar.sync 0;
  mov.u32 %r10, w0;
  atom.shared.${op}.${type} %r5, [%r10], %r3${c};
  atom.shared.${op}.${type} %r6, [w1], %r3${c};
  bar.sync 0;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r5;
  st.global.u32 [%rd5+128], %r6;
  ld.shared.u32 %r7, [w0];
  ld.shared.u32 %r8, [w1];
  @%p1 st.global.u32 [%rd2+256], %r7;
  @%p1 st.global.u32 [%rd2+260], %r8;
  ret;
}`;
}

const SPECIAL = [0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff];

test.each(FORMS)('atom.%s.%s: register and variable addresses agree', (op, type) => {
  let x = 0x2545f491;
  const next = (): number => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x; };
  for (let round = 0; round < 4; round++) {
    const init = new Uint32Array(65);
    for (let i = 0; i < init.length; i++) init[i] = next() % 3 === 0 ? SPECIAL[next() % SPECIAL.length]! : next() % 5 === 0 ? next() : next() % 40;
    // cas compares: make some lanes' expected values match
    if (op === 'cas') for (let i = 1; i < 33; i += 3) init[i] = init[0]!;
    const program = loadPtx(ptx(op, type), 'atom.ptx').program!;
    const m = new Machine(program, {
      kernel: 't', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
      args: [
        { kind: 'buffer', name: 'in', type: 'u32', count: 65, init: new Uint8Array(init.buffer), file: undefined },
        { kind: 'buffer', name: 'out', type: 'u32', count: 66, init: undefined, file: undefined },
      ],
    }, DEFAULT_RUN_OPTIONS);
    const r = m.run();
    expect(r.fault).toBeUndefined();
    const base = m.buffers[1]!.alloc.base >> 2;
    const out = Array.from(m.arena.bank.u32.subarray(base, base + 66));
    expect(out.slice(0, 32)).toEqual(out.slice(32, 64));
    expect(out[64]).toBe(out[65]);
  }
});
