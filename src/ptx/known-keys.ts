/**
 * Which bodies of a module `check` may call clean by the kinds of their statements (sweepClean).
 * Every body of a share is read once for its statements' keys (body-keys.ts); each kind is then
 * checked once, through stand-in functions of one statement per kind, parsed, resolved against
 * the module and selected the way a launch would. A body whose kinds all passed is clean without
 * being parsed; a body the shortcut cannot read, or with a kind whose stand-in did not pass or did
 * not read back as the same kinds, goes the full way.
 */
import type { FunctionDecl, PtxModule } from './ast.js';
import { BodyKeys } from './body-keys.js';
import { standIn } from './stand-in.js';
import { parsePtx } from './parser.js';
import type { ProgFunction, Program } from './resolve.js';

/** Kinds per stand-in: a stand-in that fails sends every body with one of its kinds the full way. */
const PER_STAND_IN = 400;

export class KnownKeys {
  /** Per body: the ids of its kinds, or undefined where the body goes the full way. */
  private readonly ids: (Int32Array | undefined)[] = [];
  /** Per kind id: whether its stand-in passed. */
  private passed = new Uint8Array(0);

  constructor(private readonly module: PtxModule, private readonly program: Program, private readonly problems: (program: Program, fn: ProgFunction) => number) {}

  /** Reads the bodies `mine` picks and checks each kind found once. */
  prepare(bodies: readonly FunctionDecl[], mine: Uint8Array): void {
    const reader = new BodyKeys(this.module);
    // kinds are kept apart for kernels and functions: a stand-in is one or the other
    const kinds = [new Map<string, number>(), new Map<string, number>()] as const;
    let next = 0;
    for (let i = 0; i < bodies.length; i++) {
      if (mine[i] !== 1) continue;
      const keys = reader.keys(bodies[i]!);
      if (keys === undefined) continue;
      const of = kinds[bodies[i]!.isEntry ? 1 : 0];
      const ids = new Int32Array(keys.length);
      for (let k = 0; k < keys.length; k++) {
        let id = of.get(keys[k]!);
        if (id === undefined) of.set(keys[k]!, (id = next++));
        ids[k] = id;
      }
      this.ids[i] = ids;
    }
    this.passed = new Uint8Array(next);
    for (const [entry, of] of [[false, kinds[0]], [true, kinds[1]]] as const) {
      const all = [...of.keys()];
      for (let at = 0; at < all.length; at += PER_STAND_IN) {
        const part = all.slice(at, at + PER_STAND_IN);
        if (this.standInPasses(part, entry)) for (const k of part) this.passed[of.get(k)!] = 1;
      }
    }
  }

  /** Whether body `i` is clean by its kinds (prepare first). */
  clean(i: number): boolean {
    const ids = this.ids[i];
    if (ids === undefined) return false;
    for (let k = 0; k < ids.length; k++) if (this.passed[ids[k]!] !== 1) return false;
    return true;
  }

  private standInPasses(keys: readonly string[], isEntry: boolean): boolean {
    const deferred = this.program.deferred;
    const made = standIn(this.module, keys, isEntry);
    if (made === undefined || deferred === undefined) return false;
    const parsed = parsePtx(made.text, this.module.fileName, { deferBodies: true });
    if (parsed.diagnostics.length > 0) return false;
    const decl = parsed.module.items.find((i): i is FunctionDecl => i.kind === 'function');
    if (decl === undefined) return false;
    // the stand-in must read back as exactly these kinds (and perhaps the end the resolver adds)
    const back = new BodyKeys(parsed.module).keys(decl);
    if (back === undefined || back.length < made.keys.length || back.length > made.keys.length + 1) return false;
    for (let i = 0; i < made.keys.length; i++) if (back[i] !== made.keys[i]) return false;
    const { fn, diagnostics } = deferred.outside(decl);
    return fn !== undefined && diagnostics.length === 0 && this.problems(this.program, fn) === 0;
  }
}
