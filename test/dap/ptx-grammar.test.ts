/**
 * The VS Code extension's PTX grammar (src/frontends/dap/vscode/syntaxes/ptx.tmLanguage.json) on
 * lines written from the PTX ISA's own examples: each asserted span must carry the scope, and the
 * characters on either side must not (so a token is neither cut short nor run on).
 *
 * The lines are tokenized as VS Code tokenizes them: vscode-textmate on Oniguruma (devDependencies).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers.js';
import tm from 'vscode-textmate';
import onig from 'vscode-oniguruma';

interface Capture { name?: string }
interface Rule {
  name?: string; match?: string; begin?: string; end?: string; include?: string;
  captures?: Record<string, Capture>; beginCaptures?: Record<string, Capture>; endCaptures?: Record<string, Capture>;
  patterns?: Rule[];
}
interface Grammar { scopeName: string; patterns: Rule[]; repository: Record<string, Rule>; fileTypes: string[] }

const GRAMMAR_PATH = join(ROOT, 'src', 'frontends', 'dap', 'vscode', 'syntaxes', 'ptx.tmLanguage.json');
const grammar = JSON.parse(readFileSync(GRAMMAR_PATH, 'utf8')) as Grammar;

/** Per character of a line: the scopes on it, outermost first, and which token it belongs to. */
interface Line { scopes: string[][]; token: number[] }
type Tokenizer = (text: string) => Line[];

/**
 * Asserts `text` (its `nth` occurrence on the line) is one token with `scope`: every character has
 * it, and a neighbour either lacks it or belongs to another token (.f32.s32 are two types).
 */
function expectToken(line: string, text: string, scope: string, nth = 0): void {
  const { scopes: chars, token } = tokenize(line)[0]!;
  let at = -1;
  for (let k = 0; k <= nth; k++) at = line.indexOf(text, at + 1);
  if (at < 0) throw new Error(`test: '${text}' not in '${line}'`);
  const end = at + text.length;
  const one = chars.slice(at, end).every((s) => s.includes(scope)) && token.slice(at, end).every((t) => t === token[at]);
  expect({ line, text, scope, oneToken: one }).toEqual({ line, text, scope, oneToken: true });
  const before = at > 0 && chars[at - 1]!.includes(scope) && token[at - 1] === token[at];
  const after = end < line.length && chars[end]!.includes(scope) && token[end] === token[at];
  expect({ line, text, scope, before, after }).toEqual({ line, text, scope, before: false, after: false });
}

/** Asserts a begin/end region (a string, a block comment) covers `text` exactly: its delimiters are tokens of their own. */
function expectRegion(line: string, text: string, scope: string): void {
  const chars = tokenize(line)[0]!.scopes;
  const at = line.indexOf(text);
  const end = at + text.length;
  const inside = chars.slice(at, end).every((c) => c.includes(scope));
  const outside = (at > 0 && chars[at - 1]!.includes(scope)) || (end < line.length && chars[end]!.includes(scope));
  expect({ line, text, scope, inside, outside }).toEqual({ line, text, scope, inside: true, outside: false });
}

function expectNoScope(line: string, text: string, prefix: string): void {
  const chars = tokenize(line)[0]!.scopes;
  const at = line.indexOf(text);
  const found = chars.slice(at, at + text.length).flat().filter((s) => s.startsWith(prefix));
  expect({ line, text, found }).toEqual({ line, text, found: [] });
}

/** vscode-textmate's tokenizer on Oniguruma, as VS Code runs a grammar. */
async function vscodeTextmate(): Promise<Tokenizer> {
  const wasm = readFileSync(join(dirname(createRequire(import.meta.url).resolve('vscode-oniguruma')), 'onig.wasm'));
  await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new tm.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p: string[]) => onig.createOnigScanner(p), createOnigString: (s: string) => onig.createOnigString(s) }),
    loadGrammar: async (scope) => (scope === 'source.ptx' ? tm.parseRawGrammar(readFileSync(GRAMMAR_PATH, 'utf8'), GRAMMAR_PATH) : null),
  });
  const g = await registry.loadGrammar('source.ptx');
  if (!g) throw new Error('vscode-textmate did not load the grammar');
  return (text) => {
    let state = tm.INITIAL;
    return text.split('\n').map((line) => {
      const r = g.tokenizeLine(line, state);
      state = r.ruleStack;
      const out: Line = { scopes: [], token: [] };
      r.tokens.forEach((t, k) => {
        for (let i = t.startIndex; i < Math.min(t.endIndex, line.length); i++) { out.scopes[i] = t.scopes; out.token[i] = k; }
      });
      return out;
    });
  };
}

const tokenize: Tokenizer = await vscodeTextmate();

const INS = 'keyword.instruction.ptx';
const TYPE = 'storage.type.ptx';
const SPACE = 'storage.modifier.state-space.ptx';
const MOD = 'storage.modifier.ptx';
const DIR = 'keyword.other.directive.ptx';
const REG = 'variable.other.register.ptx';
const SREG = 'variable.language.special-register.ptx';

test('the grammar is for .ptx files and every regex compiles', () => {
  expect(grammar.scopeName).toBe('source.ptx');
  expect(grammar.fileTypes).toEqual(['ptx']);
  const all = (rules: Rule[]): string[] => rules.flatMap((r) => [r.match, r.begin, r.end].filter((s): s is string => !!s).concat(all(r.patterns ?? [])));
  for (const src of all([...grammar.patterns, ...Object.values(grammar.repository)])) expect(() => new RegExp(src, 'dg')).not.toThrow();
});

describe('on vscode-textmate', () => {

  test('opcodes with their modifiers and types: the opcode, each .modifier and each .type are separate tokens', () => {
    const l = '        ld.param.u32    %r2, [_Z5saxpyifPKfPf_param_0];';
    expectToken(l, 'ld', INS);
    expectToken(l, '.param', SPACE);
    expectToken(l, '.u32', TYPE);
    expectToken(l, '%r2', REG);
    expectNoScope(l, '_Z5saxpyifPKfPf_param_0', 'keyword');
    const f = '\tfma.rn.f32 %f3, %f1, %f2, %f3;';
    expectToken(f, 'fma', INS);
    expectToken(f, '.rn', MOD);
    expectToken(f, '.f32', TYPE);
    const v = '\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];';
    expectToken(v, '.global', SPACE);
    expectToken(v, '.v4', MOD);
    expectToken(v, '%rd1', REG);
    expectToken(v, '16', 'constant.numeric.integer.ptx');
    const c = '\tcvt.rn.f32.s32 %f1, %r1;';
    expectToken(c, 'cvt', INS);
    expectToken(c, '.f32', TYPE);
    expectToken(c, '.s32', TYPE);
    // a modifier that is also an opcode's name (bar.red.and) is a modifier there
    const b = '\tbar.red.and.pred %p2, 0, %p1;';
    expectToken(b, 'bar', INS);
    expectToken(b, '.and', MOD);
    expectToken(b, '.pred', TYPE);
    expectToken(b, '%p2', REG);
  });

  test('predicated branches, labels and the registers of each class', () => {
    const g = '\t@!%p1 bra $L__BB0_2;';
    expectToken(g, '@!', 'keyword.operator.predicate.ptx');
    expectToken(g, '%p1', REG);
    expectToken(g, 'bra', INS);
    expectToken('$L__BB0_2:', '$L__BB0_2', 'entity.name.label.ptx');
    expectToken('$L__BB0_2:', ':', 'punctuation.separator.label.ptx');
    const s = '\tsetp.ge.s32 %p1, %r5, %r2;';
    expectToken(s, 'setp', INS);
    expectToken(s, '.ge', MOD);
    expectToken(s, '%r5', REG);
    expectToken('\tadd.s64 %rd4, %rd3, %rd2;', '%rd4', REG);
    expectToken('\tadd.f64 %fd1, %fd2, %fd3;', '%fd1', REG);
    expectToken('\t.reg .pred %p<3>;', '%p', REG);
    expectToken('\t.reg .pred %p<3>;', '.reg', SPACE);
    expectToken('\t.reg .pred %p<3>;', '.pred', TYPE);
  });

  test('special registers, with and without a component', () => {
    const l = '\tmov.u32 %r1, %tid.x;';
    expectToken(l, '%tid.x', SREG);
    expectToken(l, '%r1', REG);
    expectToken('\tmov.u32 %r3, %ctaid.y;', '%ctaid.y', SREG);
    expectToken('\tmov.u32 %r3, %laneid;', '%laneid', SREG);
    expectToken('\tmov.u64 %rd1, %clock64;', '%clock64', SREG);
    // a register whose name starts like a special one is an ordinary register
    expectToken('\tmov.u32 %tidx, 0;', '%tidx', REG);
  });

  test('numbers: hex floats (0f, 0d), hex, binary, decimal integers and floats', () => {
    // 0f3F800000 is 1.0f and 0d3FF0000000000000 is 1.0 (PTX ISA, floating-point constants)
    expectToken('\tmov.f32 %f1, 0f3F800000;', '0f3F800000', 'constant.numeric.float.hex.ptx');
    expectToken('\tmov.f64 %fd1, 0d3FF0000000000000;', '0d3FF0000000000000', 'constant.numeric.float.hex.ptx');
    expectToken('\tand.b32 %r1, %r2, 0xFF;', '0xFF', 'constant.numeric.integer.hex.ptx');
    expectToken('\tand.b32 %r1, %r2, 0b1010;', '0b1010', 'constant.numeric.integer.binary.ptx');
    expectToken('\tshl.b32 %r1, %r2, 2;', '2', 'constant.numeric.integer.ptx', 2);
    expectToken('.version 8.5', '8.5', 'constant.numeric.float.ptx');
    // 0f followed by other than 8 hex digits is not a float constant
    expectNoScope('\tmov.f32 %f1, 0f3F80;', '0f3F80', 'constant.numeric.float');
  });

  test('directives, entry and function names, strings', () => {
    expectToken('.version 8.5', '.version', DIR);
    expectToken('.target sm_80', '.target', DIR);
    expectToken('.address_size 64', '.address_size', DIR);
    const e = '.visible .entry _Z5saxpyifPKfPf(';
    expectToken(e, '.visible', DIR);
    expectToken(e, '.entry', DIR);
    expectToken(e, '_Z5saxpyifPKfPf', 'entity.name.function.ptx');
    const f = '.func  (.param .b32 func_retval0) _Z4axpyfff(';
    expectToken(f, '.func', DIR);
    expectToken(f, '.param', SPACE);
    expectToken(f, '.b32', TYPE);
    expectToken(f, '_Z4axpyfff', 'entity.name.function.ptx');
    expectNoScope(f, 'func_retval0', 'entity');
    const file = '\t.file\t1 "/src/kernel.cu"';
    expectToken(file, '.file', DIR);
    expectRegion(file, '"/src/kernel.cu"', 'string.quoted.double.ptx');
    expectRegion('\t.file\t2 "a\\"b.cu" 0', '"a\\"b.cu"', 'string.quoted.double.ptx');
    expectToken('\t.loc\t1 9 0', '.loc', DIR);
    expectToken('.extern .shared .align 16 .b8 smem[];', '.align', DIR);
    expectToken('.extern .shared .align 16 .b8 smem[];', '.shared', SPACE);
  });

  test('comments: line and block (across lines); an opcode inside is comment', () => {
    const l = '\tadd.s32 %r1, %r2, 1; // add.s32 again';
    expectToken(l, '// add.s32 again', 'comment.line.double-slash.ptx');
    expectToken(l, 'add', INS);
    expectNoScope(l, 'add.s32 again', 'keyword');
    const lines = tokenize('/* a block\n   add.s32 inside */ sub.s32 %r1, %r2, 1;');
    const second = '   add.s32 inside */ sub.s32 %r1, %r2, 1;';
    const at = (t: string): string[] => lines[1]!.scopes[second.indexOf(t)]!;
    expect(at('add')).toContain('comment.block.ptx');
    expect(at('add')).not.toContain(INS);
    expect(at('*/')).toContain('comment.block.ptx');
    expect(at('sub')).toContain(INS);
    expect(at('sub')).not.toContain('comment.block.ptx');
  });
});
