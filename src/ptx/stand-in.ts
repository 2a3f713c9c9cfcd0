/**
 * Stand-ins for kinds of statement (`check`, known-keys.ts): a module of one function whose
 * statements have given keys (body-keys.ts). Each mark of a key is written back as a name the
 * function declares the way the key says (a register of the type; a variable of the storage,
 * space and shape), a label it defines, and the implied `exit`/`ret` as a statement. Resolving and
 * selecting it stands in for every statement of those keys, which hold all a statement depends
 * on; the caller checks that the stand-in's own keys are these.
 */
import type { PtxModule } from './ast.js';
import { END, IMPLIED, LABEL, REG, VAR } from './body-keys.js';
import { isIdentPart } from './scanner.js';

/** The name a stand-in gives its label. */
const STAND_IN_LABEL = '__ptxdbg_L';
const MARKS = REG + VAR + LABEL;

/**
 * The stand-in's text and the keys its statements will have (the implied end's is `ret;` or
 * `exit;`); undefined for a mark it cannot write back (vectors, unsized or `.ptr` parameters).
 */
export function standIn(module: Pick<PtxModule, 'version' | 'target' | 'addressSize'>, keys: readonly string[], isEntry: boolean): { text: string; keys: string[] } | undefined {
  const regs = new Set<string>();
  const vars = new Map<string, string>();
  const params: string[] = [];
  const decls: string[] = [];
  const statements: string[] = [];
  const own: string[] = [];
  let label = false;
  for (const key of keys) {
    if (key.startsWith(IMPLIED)) {
      const stmt = `${key.slice(1)};`;
      statements.push(stmt);
      own.push(stmt);
      continue;
    }
    let out = '';
    let run = 0;
    for (let i = 0; i < key.length; i++) {
      const c = key[i]!;
      if (MARKS.indexOf(c) < 0) continue;
      out += key.slice(run, i);
      if (c === REG) {
        const pct = key.charCodeAt(i + 1) === 37;
        const from = i + (pct ? 2 : 1);
        let j = from;
        while (isIdentPart(key.charCodeAt(j))) j++;
        const type = key.slice(from, j);
        const name = `${pct ? '%' : ''}__ptxdbg_${type}`;
        if (!regs.has(name)) {
          regs.add(name);
          decls.push(`.reg .${type} ${name};`);
        }
        out += name;
        run = j;
        i = j - 1;
      } else if (c === VAR) {
        const j = key.indexOf(END, i);
        const shape = key.slice(i + 1, j);
        let name = vars.get(shape);
        if (name === undefined) {
          name = declareVar(shape, vars.size, isEntry, params, decls);
          if (name === undefined) return undefined;
          vars.set(shape, name);
        }
        out += name;
        run = j + 1;
        i = j;
      } else {
        out += STAND_IN_LABEL;
        label = true;
        run = i + 1;
      }
    }
    statements.push(out + key.slice(run));
    own.push(key);
  }
  const target = module.target.length > 0 ? `.target ${module.target.join(', ')}\n` : '';
  const text = `.version ${module.version ?? '8.0'}\n${target}.address_size ${module.addressSize}\n`
    + `${isEntry ? '.entry' : '.func'} __ptxdbg_stand_in(${params.join(', ')})\n{\n${decls.join('\n')}\n${label ? `${STAND_IN_LABEL}:\n` : ''}${statements.join('\n')}\n}\n`;
  return { text, keys: own };
}

/** The declaration of a variable of `shape` (body-keys' storage:space:type:vector:size:align:dims:extra): a kernel's parameter or a body's variable; its name. */
function declareVar(shape: string, n: number, isEntry: boolean, params: string[], decls: string[]): string | undefined {
  const [storage, space, type, vector, , align, dims, extra] = shape.split(':');
  if (vector !== '1' || dims === undefined || (dims !== '' && dims.split(',').some((d) => d === ''))) return undefined;
  const brackets = dims === '' ? '' : dims.split(',').map((d) => `[${d}]`).join('');
  const name = storage === 'cta' ? extra! : `__ptxdbg_v${n}`;
  const decl = `.${space} .align ${align} .${type} ${name}${brackets}`;
  if (storage === 'kernelParam' && isEntry && space === 'param' && extra === '') params.push(decl);
  else if ((storage === 'frame' && extra === '' && (space === 'param' || space === 'local')) || (storage === 'cta' && space === 'shared')) decls.push(`${decl};`);
  else return undefined;
  return name;
}
