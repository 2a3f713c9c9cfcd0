import { readFileSync } from 'node:fs';
import { parsePtx } from '../../src/ptx/parser.js';
import { defaultResolver, type SymbolResolver } from '../../src/ptx/dwarf-sections.js';
import { formatOperations } from '../../dwarf/src/index.js';
import { ScopeIndex } from '../../dwarf/src/index.js';
import { ROOT } from '../helpers.js';
import { join } from 'node:path';
import { dwarfFromModule } from '../../src/ptx/dwarf.js';

const CONF = join(ROOT, 'test', 'fixtures');
const load = (name: string, resolver?: SymbolResolver): ScopeIndex => {
  const { module } = parsePtx(readFileSync(`${CONF}/${name}/kernel.G.ptx`, 'utf8'));
  return new ScopeIndex(dwarfFromModule(module, resolver ? { resolver } : {}));
};
const KERNEL = '_Z11localArraysPKiPiS1_S1_ii';

describe('scope lookup', () => {
  const s = load('local_arrays');
  const names = (i: number): string[] => s.variablesAtInstruction(KERNEL, i).map((v) => `${v.depth}:${v.name}`);

  it('maps subprograms to PTX functions and instruction ranges', () => {
    const f = s.functionNamed(KERNEL)!;
    expect(f.name).toBe('localArrays');
    expect(f.ranges.map((r) => [r.begin.reloc?.symbol, r.end.reloc?.symbol])).toEqual([['$L__func_begin0', '$L__func_end0']]);
    // default resolver: function 0, instructions [0, count)
    expect(f.ranges[0]!.begin.address).toBe(0n);
    expect(s.functionAt(5n)).toBe(f);
    expect(s.functionAt(1n << 32n)).toBeUndefined();
  });

  it('lists parameters only before the body block, then nested blocks innermost first', () => {
    expect(names(0)).toEqual(['0:in', '0:sortedOut', '0:histOut', '0:pickOut', '0:n', '0:win']);
    expect(names(20)).toEqual(['0:k', '1:buf', '1:hist', '1:i', '2:in', '2:sortedOut', '2:histOut', '2:pickOut', '2:n', '2:win']);
    expect(names(60).slice(0, 2)).toEqual(['0:v', '1:k']);
    expect(s.variablesAtInstruction('nope', 0)).toEqual([]);
  });

  it('gives types, address classes and the location that applies at the pc', () => {
    const at20 = s.variablesAtInstruction(KERNEL, 20);
    const buf = at20.find((v) => v.name === 'buf')!;
    expect([buf.typeName, buf.space, buf.declLine, buf.declFile]).toEqual(['int [16]', 'local', 9, '/src/local_arrays/kernel.cu']);
    expect(formatOperations(buf.ops!)).toBe('DW_OP_addr __local_depot0, DW_OP_plus_uconst 0x0');
    const inp = at20.find((v) => v.name === 'in')!;
    expect([inp.typeName, inp.space, inp.kind]).toEqual(['const int *', 'param', 'parameter']);
    // k lives in a location list: %r2 at instruction 20, %r6 at 60
    expect(formatOperations(at20.find((v) => v.name === 'k')!.ops!)).toBe('DW_OP_regx %r2');
    expect(formatOperations(s.variablesAtInstruction(KERNEL, 60).find((v) => v.name === 'k')!.ops!)).toBe('DW_OP_regx %r6');
  });

  it('evaluates locations with the engine resolver and callbacks', () => {
    const engine: SymbolResolver = {
      instructionAddress: (r) => defaultResolver.instructionAddress(r),
      variableAddress: (v) => (v.name === '__local_depot0' ? 0x1000n : v.space === 'param' ? 0x160n : 0n),
    };
    const e = load('local_arrays', engine);
    const vars = e.variablesAtInstruction(KERNEL, 20);
    const hist = vars.find((v) => v.name === 'hist')!;
    expect(e.evaluateVariable(hist)).toEqual({
      ok: true,
      location: { kind: 'memory', address: 0x1040n, symbolic: { symbol: '__local_depot0', offset: 0x40n, space: 'local' } },
    });
    expect(e.evaluateVariable(vars.find((v) => v.name === 'k')!)).toEqual({ ok: true, location: { kind: 'register', register: '%r2' } });
    const n = vars.find((v) => v.name === 'n')!;
    const r = e.evaluateVariable(n);
    expect(r.ok && r.location.kind === 'memory' ? r.location.symbolic : undefined).toEqual({ symbol: '_Z11localArraysPKiPiS1_S1_ii_param_4', offset: 0n, space: 'param' });
  });

  it('includes unit-level shared variables', () => {
    const sh = load('reduce_shared_tree');
    const f = sh.functions()[0]!;
    const vars = sh.variablesAt(f.ranges[0]!.begin.address + 3n);
    const shared = vars.filter((v) => v.space === 'shared');
    expect(shared.length).toBeGreaterThan(0);
    for (const v of shared) expect(v.ops?.[0]?.reloc?.target).toMatchObject({ kind: 'variable', space: 'shared' });
  });
});
