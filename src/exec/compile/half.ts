/**
 * Half-precision arithmetic (.f16, .bf16 and their x2 pairs).
 */
import { lanes } from '../codegen.js';
import type { Exec } from '../compiled.js';

import { type Ctx, bind, dst, fail, src } from './operands.js';
import { roundMod } from './modifiers.js';
import { compileSetp } from './compare.js';

export function compileHalf(ctx: Ctx, t: string): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const op = ins.opcode;
  const mods = ins.mods;
  const rnd = roundMod(mods);
  const pair = t.endsWith('x2');
  const base = t.startsWith('bf') ? 'bf16' : 'f16';
  const P = pair ? `${base}x2` : base;
  const D = (): number => dst(ctx, ops[0]);
  const A = (): number => src(ctx, ops[1], t);
  const B = (): number => src(ctx, ops[2], t);
  const C = (): number => src(ctx, ops[3], t);
  const post = (e: string): string => {
    let r = e;
    if (mods.includes('ftz') && !pair) r = `K.fp.${base === 'f16' ? 'ftz16' : 'ftzBf16'}(${r})`;
    if (mods.includes('sat') && !pair) r = `K.fp.${base === 'f16' ? 'sat16' : 'satBf16'}(${r})`;
    return `d = ${r};`;
  };
  const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
  switch (op) {
    case 'add': case 'sub': case 'mul':
      return bind(lanes('u', ['u', 'u'], post(`K.fp.${P}${cap(op)}(a, b, X0)`)), D(), A(), B(), 0, 0, rnd);
    case 'fma': case 'mad':
      return bind(lanes('u', ['u', 'u', 'u'], post(`K.fp.${P}Fma(a, b, c, X0)`)), D(), A(), B(), C(), 0, rnd);
    case 'neg': return bind(lanes('u', ['u'], `d = K.fp.${pair ? 'h16x2Neg' : 'h16Neg'}(a);`), D(), A());
    case 'abs': return bind(lanes('u', ['u'], `d = K.fp.${pair ? 'h16x2Abs' : 'h16Abs'}(a);`), D(), A());
    case 'min': case 'max': {
      const fn = `${base}${cap(op)}`;
      const nan = mods.includes('NaN');
      if (pair) return bind(lanes('u', ['u', 'u'], `d = K.fp.pack16x2(K.fp.${fn}(a & 65535, b & 65535, ${nan}), K.fp.${fn}(a >>> 16, b >>> 16, ${nan}));`), D(), A(), B());
      return bind(lanes('u', ['u', 'u'], `d = K.fp.${fn}(a & 65535, b & 65535, ${nan});`), D(), A(), B());
    }
    case 'setp': case 'set': return compileSetp(ctx, t);
    default: return fail(ctx, `'${[op, ...mods].join('.')}' is not supported yet`);
  }
}
