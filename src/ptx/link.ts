/**
 * Linking several PTX files into one program, as nvlink does for `nvcc -rdc=true` code:
 *
 * - `.extern .func f` and `.extern .global x` (any space but .shared) name a `.visible` (or `.weak`)
 *   definition in another file; two `.visible` definitions of a name, a function defined as a
 *   variable elsewhere, or different address sizes are located errors;
 * - `.weak` definitions (template instantiations, inline functions): the first (or the `.visible`
 *   one) is the program's; other copies of a weak function stay private to their file;
 * - names without linkage are private to their file: one that another file also defines (nvcc's
 *   `$str` printf strings) is renamed in its file;
 * - `.extern .shared` arrays all name the launch's dynamic shared memory and may repeat.
 *
 * The output is one PTX text the ordinary front end loads: every file's text in command-line
 * order, each with its header directives commented out, dropped declarations blanked (line
 * breaks kept, so line numbers stay those of each file plus its starting line), `.file`/`.loc`
 * indices shifted apart, and each file's DWARF sections appended to the same-named ones (one
 * compile unit per file, section references re-pointed at each file's piece).
 */
import type { FunctionDecl, PtxModule, Span, Statement, VarDecl } from './ast.js';
import { type Diagnostic, formatDiagnostics } from './diagnostics.js';
import { parsePtx } from './parser.js';

export interface LinkInput {
  readonly path: string;
  readonly text: string;
}

export interface LinkResult {
  /** The linked PTX, or undefined when there were errors. */
  readonly text: string | undefined;
  /** Rendered `path:line:col: error: ...` messages (parse errors and link errors). */
  readonly errors: string[];
  readonly warnings: string[];
  /** Per input: the line of the linked text its first line became (1-based). */
  readonly firstLine: number[];
}

type Def = { readonly file: number; readonly item: FunctionDecl | VarDecl; readonly isFunc: boolean };

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

export function linkPtx(inputs: readonly LinkInput[]): LinkResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const modules: PtxModule[] = [];
  for (const inp of inputs) {
    const { module, diagnostics } = parsePtx(inp.text, inp.path);
    const errs = diagnostics.filter((d) => d.severity === 'error');
    if (errs.length) errors.push(formatDiagnostics(inp.path, inp.text, errs));
    modules.push(module);
  }
  if (errors.length) return { text: undefined, errors, warnings, firstLine: [] };

  const located = (file: number, span: Span, message: string): string => {
    const d: Diagnostic = { severity: 'error', message, span };
    return formatDiagnostics(inputs[file]!.path, inputs[file]!.text, [d]);
  };
  const where = (file: number, span: Span): string => {
    const upto = inputs[file]!.text.slice(0, span.start);
    return `${inputs[file]!.path}:${upto.split('\n').length}`;
  };

  // address sizes must agree (nvlink refuses mixed 32/64-bit objects)
  for (let f = 1; f < modules.length; f++) {
    if (modules[f]!.addressSize !== modules[0]!.addressSize) {
      errors.push(`${inputs[f]!.path}: error: .address_size ${modules[f]!.addressSize} does not match ${inputs[0]!.path} (.address_size ${modules[0]!.addressSize})`);
    }
  }

  // every module-scope definition by name
  const defs = new Map<string, Def[]>();
  const externs: { file: number; item: FunctionDecl | VarDecl; isFunc: boolean }[] = [];
  modules.forEach((m, file) => {
    for (const item of m.items) {
      if (item.kind !== 'function' && item.kind !== 'var') continue;
      const isFunc = item.kind === 'function';
      const isDef = isFunc ? item.body !== undefined : item.linkage !== 'extern';
      if (!isDef) { externs.push({ file, item, isFunc }); continue; }
      let list = defs.get(item.name);
      if (list === undefined) defs.set(item.name, (list = []));
      list.push({ file, item, isFunc });
    }
  });

  const drop: Span[][] = modules.map(() => []);
  const renames: Map<string, string>[] = modules.map(() => new Map());
  const taken = new Set(defs.keys());
  for (const [name, list] of defs) {
    const external = list.filter((d) => d.item.linkage === 'visible' || d.item.linkage === 'weak' || d.item.linkage === 'common');
    const internal = list.filter((d) => !external.includes(d));
    // a name is either a function or a variable across the program
    const kinds = new Set(external.map((d) => d.isFunc));
    if (kinds.size > 1) {
      const [a, b] = [external.find((d) => d.isFunc)!, external.find((d) => !d.isFunc)!];
      errors.push(located(b.file, b.item.span, `'${name}' is a variable here but a function at ${where(a.file, a.item.span)}`));
      continue;
    }
    const strong = external.filter((d) => d.item.linkage === 'visible');
    if (strong.length > 1) {
      for (const d of strong.slice(1)) errors.push(located(d.file, d.item.span, `multiple definition of '${name}' (first defined at ${where(strong[0]!.file, strong[0]!.item.span)})`));
      continue;
    }
    // one definition is the program's: the strong one, else the first weak/common one. Other weak
    // copies stay, renamed private to their file (their DWARF names their labels; by the
    // one-definition rule they are the same code), and other common variables go.
    const keep = strong[0] ?? external[0];
    for (const d of external) {
      if (d === keep) continue;
      if (d.isFunc) {
        let n = 1, fresh = `${name}$L${d.file}`;
        while (taken.has(fresh)) fresh = `${name}$L${d.file}_${n++}`;
        taken.add(fresh);
        renames[d.file]!.set(name, fresh);
      } else drop[d.file]!.push(d.item.span);
    }
    // private names that another file also defines get a per-file name
    const privFiles = new Set(internal.map((d) => d.file));
    const clash = external.length > 0 || privFiles.size > 1;
    if (clash) {
      for (const file of privFiles) {
        if (external.length === 0 && file === Math.min(...privFiles)) continue; // the first keeps its name
        let n = 1, fresh = `${name}$L${file}`;
        while (taken.has(fresh)) fresh = `${name}$L${file}_${n++}`;
        taken.add(fresh);
        renames[file]!.set(name, fresh);
      }
    }
  }

  // extern declarations: satisfied by a definition elsewhere (then dropped), of the same kind
  const seenDynShared = new Set<string>();
  for (const e of externs) {
    const name = e.item.name;
    if (!e.isFunc && (e.item as VarDecl).space === 'shared') {
      // dynamic shared memory: one declaration per name is enough
      if (seenDynShared.has(name)) drop[e.file]!.push(e.item.span);
      seenDynShared.add(name);
      continue;
    }
    const list = (defs.get(name) ?? []).filter((d) => d.item.linkage === 'visible' || d.item.linkage === 'weak' || d.item.linkage === 'common');
    if (list.length === 0) continue; // provided by the runtime (vprintf, malloc, ...) or never used
    const d = list[0]!;
    if (d.isFunc !== e.isFunc) {
      errors.push(located(e.file, e.item.span, `'${name}' is declared as a ${e.isFunc ? 'function' : 'variable'} but defined as a ${d.isFunc ? 'function' : 'variable'} at ${where(d.file, d.item.span)}`));
      continue;
    }
    if (!e.isFunc) {
      const ev = e.item as VarDecl, dv = d.item as VarDecl;
      if (ev.space !== dv.space) {
        errors.push(located(e.file, e.item.span, `'${name}' is declared in .${ev.space} but defined in .${dv.space} at ${where(d.file, d.item.span)}`));
        continue;
      }
      drop[e.file]!.push(e.item.span);
    }
  }
  if (errors.length) return { text: undefined, errors, warnings, firstLine: [] };

  // DWARF: every file keeps its sections; same-named sections are concatenated in file order
  // (dwarf/assemble.ts), so each later file's references to a section (`.b32 .debug_abbrev`,
  // `.debug_loc+62`) must name the start of its own piece: a label put there. Section labels
  // that another file also defines ($L__info_string0) are renamed like private names.
  // (code labels too: DWARF names them, `.b64 $L__tmp3`, and the assembler's label table is one
  // per module)
  const sectionLabelFiles = new Map<string, number[]>();
  const note = (name: string, file: number): void => {
    const fl = sectionLabelFiles.get(name) ?? [];
    if (!fl.includes(file)) fl.push(file);
    sectionLabelFiles.set(name, fl);
  };
  const walk = (body: readonly Statement[], file: number): void => {
    for (const st of body) {
      if (st.kind === 'label') note(st.name, file);
      else if (st.kind === 'block') walk(st.body, file);
    }
  };
  modules.forEach((m, file) => {
    for (const it of m.items) {
      if (it.kind === 'section') for (const l of it.labels) note(l.name, file);
      else if (it.kind === 'function' && it.body) walk(it.body, file);
    }
  });
  for (const [name, fl] of sectionLabelFiles) {
    for (const file of fl.slice(1)) {
      if (renames[file]!.has(name)) continue;
      let n = 1, fresh = `${name}$L${file}`;
      while (taken.has(fresh)) fresh = `${name}$L${file}_${n++}`;
      taken.add(fresh);
      renames[file]!.set(name, fresh);
    }
  }
  const pieceLabel = (file: number, section: string): string => `$Lptxdbg_${file}_${section.replace(/^\./, '')}`;
  const sectionsOf = modules.map((m) => new Set(m.items.filter((i) => i.kind === 'section').map((i) => (i.kind === 'section' ? i.name : ''))));

  // the linked text
  const version = modules.map((m) => m.version).filter((v): v is string => v !== undefined)
    .sort((a, b) => Number(b) - Number(a))[0];
  const head = [
    `// linked by ptxdbg from ${inputs.map((i) => i.path.split('/').pop()).join(', ')}`,
    ...(version !== undefined ? [`.version ${version}`] : []),
    ...(modules[0]!.target.length ? [`.target ${modules[0]!.target.join(', ')}`] : []),
    `.address_size ${modules[0]!.addressSize}`,
  ];
  const parts: string[] = [head.join('\n')];
  const firstLine: number[] = [];
  let line = head.length + 1;
  let fileBase = 0;
  modules.forEach((m, file) => {
    let text = inputs[file]!.text;
    // blank dropped declarations, last first so earlier spans stay valid
    const spans = [...drop[file]!].sort((a, b) => b.start - a.start);
    for (const s of spans) text = text.slice(0, s.start) + blank(text.slice(s.start, s.end)) + text.slice(s.end);
    text = text.replace(/^([ \t]*)(\.(version|target|address_size)\b)/gm, '$1// $2');
    const shift = fileBase;
    if (shift > 0) {
      text = text.replace(/^([ \t]*\.file[ \t]+)(\d+)/gm, (_m, p: string, n: string) => `${p}${Number(n) + shift}`)
        .replace(/(\.loc[ \t]+)(\d+)/g, (_m, p: string, n: string) => `${p}${Number(n) + shift}`)
        .replace(/(inlined_at[ \t]+)(\d+)/g, (_m, p: string, n: string) => `${p}${Number(n) + shift}`);
    }
    const rn = renames[file]!;
    if (rn.size > 0) text = renameIdentifiers(text, rn);
    if (file > 0 && sectionsOf[file]!.size > 0) text = relabelSections(text, sectionsOf[file]!, (sec) => pieceLabel(file, sec));
    const maxFile = Math.max(0, ...m.items.filter((i) => i.kind === 'file').map((i) => (i.kind === 'file' ? i.index : 0)));
    fileBase += maxFile;
    firstLine.push(line);
    parts.push(text);
    line += text.split('\n').length;
  });
  return { text: parts.join('\n'), errors, warnings, firstLine };
}

/** Replaces whole identifiers (not inside strings or comments, not after a `.` or `%`). */
function renameIdentifiers(text: string, map: ReadonlyMap<string, string>): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\/|[A-Za-z_$][\w$]*/g, (tok, offset: number) => {
    const to = map.get(tok);
    if (to === undefined) return tok;
    const before = offset > 0 ? text[offset - 1] : '';
    return before === '.' || before === '%' ? tok : to;
  });
}

/**
 * In a later file's sections: a label at the start of the first piece of each section, and data
 * naming one of this file's sections (`.b32 .debug_abbrev+8`) pointed at that label instead.
 */
function relabelSections(text: string, own: ReadonlySet<string>, label: (section: string) => string): string {
  const placed = new Set<string>();
  let out = text.replace(/(\.section[ \t]+)(\.[\w.]+)([ \t]*\n?[ \t]*\{)/g, (m, _a: string, sec: string) => {
    if (placed.has(sec)) return m;
    placed.add(sec);
    return `${m} ${label(sec)}:`;
  });
  out = out.replace(/^([ \t]*\.b(?:8|16|32|64)[ \t]+)(\.[\w.]+)/gm, (m, p: string, sec: string) => (own.has(sec) ? `${p}${label(sec)}` : m));
  return out;
}
