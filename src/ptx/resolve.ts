/**
 * Name resolution: turns the parsed module into a `Program` whose functions have a flat
 * instruction list, labels resolved to instruction indices, registers resolved to typed slots
 * (scoped: nvcc's `{ }` call-sequence blocks and inline-asm scopes redeclare names), `.local` and
 * per-call `.param` variables laid out in a per-thread frame, and a `.loc` line table per
 * instruction. Problems are located diagnostics; resolution never throws on bad input.
 */
import type { FunctionDecl, Initializer, PtxModule, Span, StructDecl, VarDecl } from './ast.js';
import type { Diagnostic } from './diagnostics.js';
import { checkDeclarationLimits, checkFunctionLimits } from './limits.js';
import { hasBody } from './ast.js';
import { type DeferredResolution, type ProgFunction, type Program, type ResolveOptions, type ROperand, type VarInfo, varSize } from './program.js';
import { makeVar, type ModuleContext, resolveFunction, Scope } from './resolve-function.js';
import { spaceInitError } from './space-init.js';

// the resolved program's types and layout (program.ts), as every reader of a Program imports them from here
export * from './program.js';

/** A kernel whose code (or code it reaches) does not resolve: its located problems. */
export class KernelProblems extends Error {
  constructor(readonly kernel: string, readonly diagnostics: readonly Diagnostic[]) {
    super(`the code of kernel '${kernel}' does not resolve (${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'})`);
  }
}

/**
 * The entry named `name`, resolved with everything it reaches (a lazy program resolves it now),
 * or undefined when the module has no such entry. Throws KernelProblems when that code has errors.
 */
export function entryOf(program: Program, name: string): ProgFunction | undefined {
  if (program.deferred !== undefined) {
    const problems = resolveReachable(program, name);
    if (problems.length > 0) throw new KernelProblems(name, problems);
  }
  const fn = program.functions.get(name);
  return fn?.isEntry ? fn : undefined;
}

/** The module's kernels, in module order, resolved or not. */
export function entryNames(program: Program): string[] {
  return program.bodies.filter((d) => d.isEntry).map((d) => d.name);
}

/**
 * Makes sure `kernel` and every function it can reach are resolved; returns their problems
 * (empty when the kernel can run). Nothing to do for a program resolved at load.
 */
export function resolveReachable(program: Program, kernel: string): readonly Diagnostic[] {
  return program.deferred?.reach([kernel, ...program.tabled]) ?? [];
}

export interface ResolveResult {
  readonly program: Program;
  readonly diagnostics: Diagnostic[];
}

/**
 * Why `name = value` is not a setting a .texref / .samplerref / .surfref initializer may give
 * (PTX ISA, "Texture Sampler and Surface Types"), or undefined. The extent and format of an image
 * are the launch's; the module can only choose how it is sampled.
 */
export function opaqueFieldError(type: string, name: string, value: string): string | undefined {
  if (type === 'surfref') return `a .surfref takes no initializer field ('${name}'): its image comes from the launch`;
  if (/^addr_mode_[012]$/.test(name)) {
    return ['wrap', 'mirror', 'clamp_ogl', 'clamp_to_edge', 'clamp_to_border'].includes(value) ? undefined
      : `${name} must be wrap, mirror, clamp_ogl, clamp_to_edge or clamp_to_border, not '${value}'`;
  }
  if (name === 'filter_mode') return value === 'nearest' || value === 'linear' ? undefined : `filter_mode must be nearest or linear, not '${value}'`;
  if (name === 'normalized_coords' || name === 'force_unnormalized_coords') return value === '0' || value === '1' ? undefined : `${name} must be 0 or 1, not '${value}'`;
  if (['width', 'height', 'depth', 'channel_data_type', 'channel_order', 'array_size', 'num_mipmap_levels', 'num_samples'].includes(name)) {
    return `${name} describes the image, which the launch gives (see the launch file's "textures"); an initializer sets only sampling fields`;
  }
  return `unknown ${type === 'samplerref' ? '.samplerref' : '.texref'} field '${name}' (filter_mode, addr_mode_0..2, normalized_coords, force_unnormalized_coords)`;
}

export function resolveModule(module: PtxModule, opts: ResolveOptions = {}): ResolveResult {
  const diags: Diagnostic[] = [];
  const err = (message: string, span: Span): void => {
    if (diags.length < 100) diags.push({ severity: 'error', message, span });
  };
  const files = new Map<number, string>();
  const structs = new Map<string, StructDecl>();
  const globals: VarInfo[] = [];
  const shared: VarInfo[] = [];
  const prototypes = new Map<string, FunctionDecl>();
  const bodies: FunctionDecl[] = [];
  const moduleScope = new Scope(undefined);
  const functionNames = new Set<string>();
  const moduleRegs: VarDecl[] = [];

  // Sizes are bounded before anything is allocated for them; past a bound nothing is resolved.
  for (const item of module.items) if (item.kind === 'struct') structs.set(item.name, item);
  if (checkDeclarationLimits(module, (d) => varSize(d, structs), err) > 0) {
    const program: Program = { module, functions: new Map(), prototypes: new Map(), globals, shared, files, structs, callPrototypes: new Set(), bodies: [], tabled: [], deferred: undefined };
    return { program, diagnostics: diags };
  }

  for (const item of module.items) {
    if (item.kind === 'file') files.set(item.index, item.path);
    else if (item.kind === 'struct') structs.set(item.name, item);
    else if (item.kind === 'var' && item.space === 'reg') {
      // ISA 1.1 module-scope `.reg`: a per-thread register every function sees (the first slots of
      // every frame, carried across calls and returns: ProgFunction.moduleRegSlots)
      moduleRegs.push(item);
    } else if (item.kind === 'var') {
      (item.space === 'shared' ? shared : globals).push(declareModuleVar(item, module.version, structs, moduleScope, err));
    } else if (item.kind === 'function') {
      functionNames.add(item.name);
      if (hasBody(item)) {
        if (bodies.some((b) => b.name === item.name)) err(`redefinition of function '${item.name}'`, item.nameSpan);
        else bodies.push(item);
      } else prototypes.set(item.name, item);
    }
  }

  for (const decl of bodies) prototypes.delete(decl.name);
  const functions = new Map<string, ProgFunction>();
  const callPrototypes = new Set<string>();
  const order = new Map(bodies.map((d, i) => [d.name, i] as const));
  /** Each resolved function's own problems (empty when none); a function that failed its size bounds is not in `functions`. */
  const problems = new Map<string, Diagnostic[]>();
  /**
   * Resolves these bodies, in module order; each one's body-level variables join the module's
   * lists in that order too, as they would resolving every body at load.
   */
  const resolveBatch = (batch: FunctionDecl[]): void => {
    batch.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
    for (const decl of batch) {
      const own: Diagnostic[] = [];
      problems.set(decl.name, own);
      const report = (message: string, span: Span): void => {
        if (own.length < 100) own.push({ severity: 'error', message, span });
      };
      if (decl.deferred !== undefined) {
        const body = decl.body; // reading it parses it
        own.push(...decl.deferred.diagnostics);
        if (body === undefined || checkFunctionLimits(decl, (d) => varSize(d, structs), report) > 0) continue;
      }
      functions.set(decl.name, resolveFunction(decl, moduleScope, structs, functionNames, shared, globals, callPrototypes, report, moduleRegs, module.version));
    }
  };
  const tabled = tabledFunctions(module, functionNames);
  let deferred: DeferredResolution | undefined;
  if (opts.lazy) {
    const memo = new Map<string, readonly Diagnostic[]>();
    const history: (readonly string[])[] = [];
    deferred = {
      history,
      reach(roots: readonly string[]): readonly Diagnostic[] {
        const key = roots.join('\0');
        const known = memo.get(key);
        if (known) return known;
        const found: Diagnostic[] = [];
        const seen = new Set<string>();
        let frontier = roots;
        while (frontier.length > 0) {
          const batch: FunctionDecl[] = [];
          const names: string[] = [];
          for (const name of frontier) {
            const at = order.get(name);
            if (at === undefined || seen.has(name)) continue;
            const decl = bodies[at]!;
            seen.add(name);
            names.push(name);
            if (!problems.has(name)) batch.push(decl);
          }
          resolveBatch(batch);
          const next: string[] = [];
          for (const name of names) {
            for (const d of problems.get(name)!) if (found.length < 100) found.push(d);
            const fn = functions.get(name);
            if (fn) for (const ins of fn.instrs) for (const o of ins.operands) eachFuncName(o, (n) => { if (!seen.has(n)) next.push(n); });
          }
          frontier = next;
        }
        memo.set(key, found);
        history.push([...roots]);
        return found;
      },
      sweep: (each, pick) => sweepBodies(bodies, resolveBatch, problems, functions, each, pick),
      outside: (decl) => resolveOutside(decl, { moduleScope, structs, functionNames, sharedOut: shared, globalsOut: globals, callPrototypes, moduleRegs, version: module.version }),
    };
  } else {
    resolveBatch([...bodies]);
    for (const own of problems.values()) for (const d of own) err(d.message, d.span);
  }
  const program: Program = { module, functions, prototypes, globals, shared, files, structs, callPrototypes, bodies, tabled, deferred };
  return { program, diagnostics: diags };
}

/** DeferredResolution.outside: a function that is not the module's, resolved against the module's names. */
function resolveOutside(decl: FunctionDecl, m: Omit<ModuleContext, 'err'> & { readonly moduleRegs: readonly VarDecl[] }): ReturnType<DeferredResolution['outside']> {
  const own: Diagnostic[] = [];
  const report = (message: string, span: Span): void => {
    if (own.length < 100) own.push({ severity: 'error', message, span });
  };
  const body = decl.body; // reading it parses it
  if (decl.deferred !== undefined) own.push(...decl.deferred.diagnostics);
  if (body === undefined || own.length > 0 || checkFunctionLimits(decl, (d) => varSize(d, m.structs), report) > 0) return { fn: undefined, diagnostics: own };
  const fn = resolveFunction(decl, m.moduleScope, m.structs, m.functionNames, m.sharedOut, m.globalsOut, m.callPrototypes, report, m.moduleRegs, m.version);
  return { fn: own.length === 0 ? fn : undefined, diagnostics: own };
}

/** DeferredResolution.sweep: each picked body resolved alone, handed to `each` if it has no problems, then let go. */
function sweepBodies(
  bodies: readonly FunctionDecl[], resolveBatch: (batch: FunctionDecl[]) => void, problems: ReadonlyMap<string, readonly Diagnostic[]>,
  functions: Map<string, ProgFunction>, each: (fn: ProgFunction) => void, pick: ((index: number) => boolean) | undefined,
): readonly Diagnostic[] {
  const found: Diagnostic[] = [];
  const one: FunctionDecl[] = [];
  for (let i = 0; i < bodies.length; i++) {
    if (pick !== undefined && !pick(i)) continue;
    const decl = bodies[i]!;
    one[0] = decl;
    resolveBatch(one);
    const own = problems.get(decl.name)!;
    for (const d of own) found.push(d);
    const fn = functions.get(decl.name);
    if (fn !== undefined && own.length === 0) each(fn);
    functions.delete(decl.name);
    decl.deferred?.forget();
  }
  return found;
}

/** A module-scope variable (not `.reg`): its initializer checked, declared in the module's scope. */
function declareModuleVar(item: VarDecl, version: PtxModule['version'], structs: Map<string, StructDecl>, moduleScope: Scope, err: (message: string, span: Span) => void): VarInfo {
  const initWhy = spaceInitError(item, version);
  if (initWhy) err(initWhy, item.span);
  for (const f of item.fields ?? []) {
    const why = opaqueFieldError(item.type, f.name, f.value);
    if (why) err(why, f.span);
  }
  const v = makeVar(item, structs, item.space === 'shared' ? 'cta' : 'module');
  if (moduleScope.names.has(item.name) && item.linkage !== 'extern') {
    const prev = moduleScope.names.get(item.name);
    if (prev?.kind === 'var' && prev.v.decl.linkage !== 'extern') err(`redefinition of '${item.name}'`, item.span);
  }
  moduleScope.names.set(item.name, { kind: 'var', v });
  return v;
}

/** Names of functions taken as addresses by module-level variable initializers. */
function tabledFunctions(module: PtxModule, functionNames: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  const visit = (init: Initializer | undefined): void => {
    if (init === undefined) return;
    if (init.kind === 'list') for (const i of init.items) visit(i);
    else if (init.kind === 'sym' && functionNames.has(init.name)) out.add(init.name);
  };
  for (const item of module.items) if (item.kind === 'var') visit(item.init);
  return [...out];
}

/** Calls `f` with every function name `o` (or an operand inside it) refers to. */
function eachFuncName(o: ROperand | undefined, f: (name: string) => void): void {
  if (o === undefined) return;
  switch (o.kind) {
    case 'func': f(o.name); return;
    case 'addr': eachFuncName(o.base, f); return;
    case 'vec': case 'list': for (const i of o.items) eachFuncName(i, f); return;
    case 'not': case 'neg': eachFuncName(o.inner, f); return;
    case 'pair': eachFuncName(o.a, f); eachFuncName(o.b, f); return;
    default: return;
  }
}
