/**
 * The gdb language around the commands (issue #27): `set`/`show` settings, convenience variables
 * (`set $i = 3`, `p $i + 1`, `$_lane` `$_warp` `$_block` `$_thread` of the focus), `echo`,
 * `printf`, `output`, `shell`, scripting (`source FILE`, `define`/`document`, breakpoint
 * `commands N ... end` with `silent` and `continue`), `thread apply`, `list` continuing and
 * `list -`, `info frame|source|line N`, `frame function NAME`, rr's `when`/`checkpoint`/`restart`,
 * cuda-gdb's focus queries, and one-line reasons for what a recording cannot do.
 *
 * Kept apart from commands.ts so that other command groups (launches) merge beside it. The state
 * is per engine, like the value history: batch, the TUI's `:` line and DAP's `-exec` share it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setCudaCommand } from './program.js';
import { CUDA_VARIABLES, cudaVariable } from './convenience.js';
import { assignText, baseName, backtrace, consoleState, type Engine, EngineError, lineText, listText, namesFunction, noDeviceThread, printName, signatureName, type Stop } from '../../engine/index.js';

/** A move's result as the language prints it. */
type Moved = Pick<Stop, 'reason' | 'message'>;

export interface LangCmd {
  names: string[];
  help: string;
  run: (e: Engine, args: string, name: string) => string | Moved;
  moves?: boolean;
}

/** What a command line returns (commands.ts's executeCommand). */
export interface Executed { output: string; moved: boolean; quit: boolean; error: boolean }
type Execute = (e: Engine, line: string) => Executed;

let execute: Execute | undefined;
/** commands.ts hands its executeCommand over (scripts run command lines; no import cycle). */
export function bindExecutor(f: Execute): void { execute = f; }
function exec(e: Engine, line: string): Executed {
  if (!execute) throw new Error('gdb language: no executor bound');
  return execute(e, line);
}

/** A block being read: `commands N`, `define NAME` or `document NAME`, up to its `end`. */
interface Block { readonly kind: 'commands' | 'define' | 'document'; readonly target: string; readonly lines: string[]; depth: number }

interface LangState {
  readonly settings: Map<string, string>;
  /** Convenience variables: name (without `$`) → the value's text, as print shows it. */
  readonly vars: Map<string, string>;
  readonly userCommands: Map<string, { body: string[]; doc: string | undefined }>;
  readonly bpCommands: Map<number, string[]>;
  block: Block | undefined;
  /** The last `list`: its lines, for `list` (the next ones) and `list -` (those before). */
  listed: { first: number; last: number; step: number } | undefined;
  readonly checkpoints: { id: number; step: number }[];
  /** Nesting of scripts and breakpoint commands (a `source` of itself must end). */
  depth: number;
}

/** gdb's defaults, and the sentence `show` says each in. */
const SETTINGS: ReadonlyMap<string, { value: string; show: (v: string) => string }> = new Map([
  ['print pretty', { value: 'off', show: (v) => `Pretty formatting of structures is ${v}.` }],
  ['print repeats', { value: '10', show: (v) => `Threshold for repeated print elements is ${v}.` }],
  ['print elements', { value: '200', show: (v) => `Limit on string chars or array elements to print is ${v}.` }],
  ['print address', { value: 'on', show: (v) => `Printing of addresses is ${v}.` }],
  ['print null-stop', { value: 'off', show: (v) => `Printing of char arrays to stop at first null char is ${v}.` }],
  ['print demangle', { value: 'on', show: (v) => `Demangling of encoded C++/ObjC names when displaying symbols is ${v}.` }],
  ['pagination', { value: 'off', show: (v) => `State of pagination is ${v}.` }],
  ['confirm', { value: 'off', show: (v) => `Whether to confirm potentially dangerous operations is ${v}.` }],
  ['width', { value: 'unlimited', show: (v) => `Number of characters gdb thinks are in a line is ${v}.` }],
  ['height', { value: 'unlimited', show: (v) => `Number of lines gdb thinks are in a page is ${v}.` }],
  ['listsize', { value: '10', show: (v) => `Number of source lines gdb will list by default is ${v}.` }],
  ['verbose', { value: 'off', show: (v) => `Verbosity is ${v}.` }],
  ['logging enabled', { value: 'off', show: (v) => `Logging is ${v}.` }],
  ['breakpoint pending', { value: 'auto', show: (v) => `Debugger's behavior regarding pending breakpoints is ${v}.` }],
  ['language', { value: 'auto', show: (v) => `The current source language is "${v}; currently c++".` }],
  ['disassemble-next-line', { value: 'off', show: (v) => `Debugger's willingness to use disassemble-next-line is ${v}.` }],
  ['cuda memcheck', { value: 'off', show: (v) => `CUDA memory checking is ${v} (ptxdbg checks every access of the recording).` }],
  ['cuda software_preemption', { value: 'off', show: (v) => `Software preemption debugging is ${v} (a recording needs none).` }],
  ['cuda api_failures', { value: 'ignore', show: (v) => `On CUDA API failures, ${v}.` }],
]);
const BOOL: ReadonlyMap<string, string> = new Map([['on', 'on'], ['1', 'on'], ['yes', 'on'], ['enable', 'on'], ['off', 'off'], ['0', 'off'], ['no', 'off'], ['disable', 'off']]);

const states = new WeakMap<Engine, LangState>();
function state(e: Engine): LangState {
  let s = states.get(e);
  if (!s) {
    s = { settings: new Map([...SETTINGS].map(([k, d]) => [k, d.value])), vars: new Map(), userCommands: new Map(), bpCommands: new Map(), block: undefined, listed: undefined, checkpoints: [], depth: 0 };
    states.set(e, s);
  }
  return s;
}

/** A setting of the language (`print repeats` → '10'), for the commands that obey one. */
export function setting(e: Engine, name: string): string | undefined { return state(e).settings.get(name); }

/** The longest known setting that `words` start with, and the rest of the words (the value). */
function findSetting(words: readonly string[]): { name: string; rest: string[] } | undefined {
  for (let n = Math.min(3, words.length); n >= 1; n--) {
    const name = words.slice(0, n).join(' ');
    if (SETTINGS.has(name)) return { name, rest: words.slice(n) };
  }
  return undefined;
}

// ---- convenience variables ----------------------------------------------------------------------

/** `$_lane` and the others of the focus (linear indices: `$_block` the block, `$_thread` the thread in it). */
function focusVariable(e: Engine, name: string): string | undefined {
  const w = e.where();
  switch (name) {
    case '_lane': return String(w.lane);
    case '_warp': return String(w.warp);
    case '_thread': return String(w.thread[0] + w.thread[1] * e.launchInfo().block[0] + w.thread[2] * e.launchInfo().block[0] * e.launchInfo().block[1]);
    case '_block': return String(w.block[0] + w.block[1] * e.launchInfo().grid[0] + w.block[2] * e.launchInfo().grid[0] * e.launchInfo().grid[1]);
    case '_step': return String(e.position().step);
    default: return cudaVariable(e, name);
  }
}

/**
 * The expression with its convenience variables replaced by their values (in parentheses);
 * registers (`$r1`), specials (`$tid`), history (`$1`, `$$`) and unknown names are left to the
 * evaluator.
 */
export function substituteVariables(e: Engine, text: string): string {
  const st = state(e);
  if (!text.includes('$')) return text;
  return text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => {
    const v = st.vars.get(name) ?? focusVariable(e, name);
    return v === undefined ? whole : `(${v})`;
  });
}

/** `set $name = EXPR`: the value's text as print shows it (an integer, a float, a char...). */
function setVariable(e: Engine, name: string, expr: string): string {
  const v = e.evaluate(substituteVariables(e, expr));
  if (focusVariable(e, name) !== undefined) throw new EngineError(`$${name} is the focus's and cannot be set; use cuda thread/lane to move the focus`);
  // a char shows as `65 'A'`: keep the number
  state(e).vars.set(name, v.value.replace(/^(-?\d+) '.*'$/, '$1'));
  return '';
}

// ---- settings -------------------------------------------------------------------------------------

function setCommand(e: Engine, args: string): string {
  const t = args.trim();
  if (!t) throw new EngineError('Argument required (expression to compute).');
  const conv = /^\$([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$/s.exec(t);
  if (conv && !/^(?:r|rd|f|fd|p|h|hh|rs)\d+$/.test(conv[1]!)) return setVariable(e, conv[1]!, conv[2]!);
  if (/^var(?:iable)?$/.test(t)) throw new EngineError('Argument required (expression to compute).');
  // set var / set variable / set {T} ADDR = v / set $r5 = v / set x = v: an assignment (writes)
  const assign = /^(?:var(?:iable)?\s+)(.+)$/s.exec(t)?.[1] ?? (/^[{$*(]|^[A-Za-z_][\w.[\]>-]*\s*=[^=]/.test(t) && !findSetting(t.split(/\s+/)) ? t : undefined);
  // a write (forks a what-if timeline): the writes' reply
  if (assign !== undefined) return assignText(e, substituteVariables(e, assign), 'set');
  const words = t.split(/\s+/);
  const found = findSetting(words);
  if (!found) {
    if (words[0] === 'cuda' && words[1] === 'break_on_launch') return setCudaCommand(e, t);
    throw new EngineError(`No symbol "${words[0]}" in current context.`);
  }
  const raw = found.rest.join(' ');
  const cur = SETTINGS.get(found.name)!.value;
  let value: string;
  if (BOOL.has(cur)) {
    value = raw === '' ? 'on' : BOOL.get(raw) ?? '';
    if (!value) throw new EngineError(`"on" or "off" expected.`);
  } else if (/^\d+$|^unlimited$/.test(cur)) {
    if (raw === 'unlimited' || raw === '0') value = 'unlimited';
    else if (/^\d+$/.test(raw)) value = raw;
    else throw new EngineError(raw ? `integer ${raw} out of range` : 'Argument required (integer to set it to, or "unlimited").');
  } else value = raw || cur;
  state(e).settings.set(found.name, value);
  // the ones print obeys
  const n = value === 'unlimited' ? 0 : Number(value);
  if (found.name === 'print repeats') consoleState(e).print.repeats = n;
  if (found.name === 'print elements') consoleState(e).print.elements = n;
  if (found.name === 'print pretty') consoleState(e).print.pretty = value === 'on';
  if (found.name === 'print address') consoleState(e).print.address = value === 'on';
  if (found.name === 'width') consoleState(e).print.width = n;
  return '';
}

function showCommand(e: Engine, args: string): string {
  const t = args.trim();
  if (t === 'convenience' || t === 'conv') {
    const st = state(e);
    const rows = [...st.vars].map(([k, v]) => `$${k} = ${v}`);
    for (const k of ['_lane', '_warp', '_thread', '_block', '_step', ...CUDA_VARIABLES]) rows.push(`$${k} = ${focusVariable(e, k)}`);
    return rows.join('\n');
  }
  if (t === 'version') return 'ptxdbg: a time-travel debugger for NVIDIA PTX kernels, with the command language of gdb, cuda-gdb and rr.';
  if (t === 'args') return 'Argument list to give program being debugged when it is started is "" (the launch is recorded: its arguments are the launch file\'s).';
  if (t === 'values') return exec(e, 'print $').output;
  if (/^cuda\s+break_on_launch$/.test(t)) {
    return e.isProgram ? `Breaking on CUDA kernel launches is ${e.breakOnLaunch ? 'application' : 'none'}.` : 'Breaking on CUDA kernel launches is none (this session records one launch).';
  }
  const found = findSetting(t.split(/\s+/));
  if (!found || found.rest.length) {
    if (!t) return [...SETTINGS].map(([k, d]) => `${k}:  ${d.show(state(e).settings.get(k)!)}`).join('\n');
    throw new EngineError(`Undefined show command: "${t}".  Try "help show".`);
  }
  return SETTINGS.get(found.name)!.show(state(e).settings.get(found.name)!);
}

// ---- output ---------------------------------------------------------------------------------------

/** C escapes of gdb's echo and printf formats. */
function unescape(s: string): string {
  return s.replace(/\\(n|t|r|a|b|f|v|\\|"|'|[0-7]{1,3}|$)/g, (_m, c: string) => {
    const named: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'", '': '' };
    return named[c] ?? String.fromCharCode(parseInt(c, 8));
  });
}

/** Split `"fmt", a, b` at top-level commas (not inside quotes, parentheses or brackets). */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0, quote = '', cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) { cur += c; if (c === '\\') cur += text[++i] ?? ''; else if (c === quote) quote = ''; continue; }
    if (c === '"' || c === "'") { quote = c; cur += c; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === ',' && depth === 0) { out.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** gdb's printf: the format's conversions, each taking the next argument evaluated in the focus. */
function printfCommand(e: Engine, args: string): string {
  const parts = splitArgs(args.trim());
  const f = /^"((?:[^"\\]|\\.)*)"$/s.exec(parts[0] ?? '');
  if (!f) throw new EngineError('Bad format string');
  const fmt = unescape(f[1]!);
  const values = parts.slice(1);
  let k = 0;
  const out = fmt.replace(/%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?(hh|h|ll|l|z)?([diouxXcsfeEgGp%])/g, (whole, flags: string, width: string | undefined, prec: string | undefined, _len, conv: string) => {
    if (conv === '%') return '%';
    const expr = values[k++];
    if (expr === undefined) throw new EngineError('Bad format string, missing \'"\'');
    // a string literal argument is its text (the expression evaluator has no strings)
    const literal = /^"((?:[^"\\]|\\.)*)"$/s.exec(expr);
    const v = literal ? { value: `"${literal[1]}"` } : e.evaluate(substituteVariables(e, expr));
    let text: string;
    const num = (): number => {
      const m = /^(-?[\d.]+(?:e[-+]?\d+)?|0x[0-9a-f]+|inf|-inf|nan\(0x[0-9a-f]+\)|-nan\(0x[0-9a-f]+\))/i.exec(v.value.replace(/^\([^)]*\)\s*/, ''));
      if (!m) throw new EngineError(`Value can't be converted to a number: ${v.value}`);
      return m[1]!.startsWith('0x') ? parseInt(m[1]!, 16) : Number(m[1]!);
    };
    switch (conv) {
      case 'd': case 'i': text = String(Math.trunc(num())); break;
      case 'u': text = String(Math.trunc(num()) >>> 0); break;
      case 'x': text = (Math.trunc(num()) >>> 0).toString(16); break;
      case 'X': text = (Math.trunc(num()) >>> 0).toString(16).toUpperCase(); break;
      case 'o': text = (Math.trunc(num()) >>> 0).toString(8); break;
      case 'c': text = String.fromCharCode(num()); break;
      case 'p': text = /0x[0-9a-f]+/i.exec(v.value)?.[0] ?? `0x${Math.trunc(num()).toString(16)}`; break;
      case 's': text = unescape(/"((?:[^"\\]|\\.)*)"/.exec(v.value)?.[1] ?? v.value); break;
      case 'e': case 'E': text = num().toExponential(prec === undefined ? 6 : Number(prec)).replace(/e([-+])(\d)$/, 'e$10$2'); if (conv === 'E') text = text.toUpperCase(); break;
      case 'g': case 'G': text = String(Number(num().toPrecision(prec === undefined ? 6 : Math.max(1, Number(prec))))); break;
      default: text = num().toFixed(prec === undefined ? 6 : Number(prec));
    }
    if (prec !== undefined && conv === 's') text = text.slice(0, Number(prec));
    if (flags.includes('+') && /^[0-9]/.test(text) && 'dieEfgG'.includes(conv)) text = '+' + text;
    if (width && width !== '*') {
      const w = Number(width);
      if (flags.includes('-')) text = text.padEnd(w);
      else if (flags.includes('0') && !'sc'.includes(conv)) text = (text.startsWith('-') ? '-' + text.slice(1).padStart(w - 1, '0') : text.padStart(w, '0'));
      else text = text.padStart(w);
    }
    void whole;
    return text;
  });
  if (k < values.length) throw new EngineError('Extra arguments at end of format string');
  return out;
}

// ---- scripts, user commands, breakpoint commands ----------------------------------------------------

/** `info breakpoints` with each breakpoint's `commands` under its row, indented as gdb lists them. */
export function withBreakpointCommands(e: Engine, table: string): string {
  const cmds = state(e).bpCommands;
  if (!cmds.size) return table;
  return table.split('\n').flatMap((row) => {
    const id = /^(\d+)\s+breakpoint\b/.exec(row)?.[1];
    const body = id !== undefined ? cmds.get(Number(id)) : undefined;
    return body?.length ? [row, ...body.map((l) => `        ${l.trim()}`)] : [row];
  }).join('\n');
}

/** Run command lines as a script: each line's output, stopping at the first error (gdb's source). */
function runScript(e: Engine, lines: readonly string[]): string {
  const st = state(e);
  if (st.depth > 32) throw new EngineError('Max user call depth exceeded -- command aborted.');
  st.depth++;
  const out: string[] = [];
  try {
    for (const line of lines) {
      const r = exec(e, line);
      if (r.output) out.push(r.output);
      if (r.error) throw new EngineError(out.join('\n'));
      if (r.quit) break;
    }
  } finally {
    st.depth--;
  }
  return out.join('\n');
}

function sourceCommand(e: Engine, args: string): string {
  const file = args.trim().replace(/^-v\s+/, '');
  if (!file) throw new EngineError('source command requires file name of file to source.');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new EngineError(`${file}: No such file or directory.`);
  }
  return runScript(e, text.split('\n'));
}

/**
 * A line that belongs to a block being read (`commands`, `define`, `document`), or undefined
 * when no block is open. Nested blocks (`while`/`if`/`commands` inside a define) count their ends.
 */
export function absorbBlockLine(e: Engine, line: string): Executed | undefined {
  const st = state(e);
  const b = st.block;
  if (!b) return undefined;
  const t = line.trim();
  if (t === 'end' && b.depth === 0) {
    st.block = undefined;
    if (b.kind === 'commands') for (const id of b.target.split(/\s+/)) st.bpCommands.set(Number(id), [...b.lines]);
    else if (b.kind === 'define') st.userCommands.set(b.target, { body: [...b.lines], doc: st.userCommands.get(b.target)?.doc });
    else {
      const u = st.userCommands.get(b.target);
      if (u) u.doc = b.lines.join('\n');
    }
    return { output: '', moved: false, quit: false, error: false };
  }
  if (/^(?:while|if|commands|define|document|python)\b/.test(t)) b.depth++;
  if (t === 'end') b.depth--;
  b.lines.push(line);
  return { output: '', moved: false, quit: false, error: false };
}

function commandsCommand(e: Engine, args: string): string {
  const t = args.trim();
  const ids = t ? t.split(/\s+/) : e.lastBreakpointSet() !== undefined ? [String(e.lastBreakpointSet())] : [];
  if (!ids.length) throw new EngineError('No breakpoints specified.');
  const known = new Set(e.breakpoints().map((b) => b.id));
  for (const id of ids) if (!/^\d+$/.test(id) || !known.has(Number(id))) throw new EngineError(`No breakpoint number ${id}.`);
  state(e).block = { kind: 'commands', target: ids.join(' '), lines: [], depth: 0 };
  return '';
}

function defineCommand(e: Engine, args: string, kind: 'define' | 'document'): string {
  const name = args.trim();
  if (!/^[A-Za-z][\w-]*$/.test(name)) throw new EngineError(`Argument required (name of command to ${kind === 'define' ? 'define' : 'document'}).`);
  if (kind === 'document' && !state(e).userCommands.has(name)) throw new EngineError(`Undefined command: "${name}".`);
  state(e).block = { kind, target: name, lines: [], depth: 0 };
  return '';
}

/** A user-defined command (`define NAME`), with `$arg0`.. and `$argc` replaced, or undefined. */
export function userCommand(e: Engine, name: string, args: string): Executed | undefined {
  const u = state(e).userCommands.get(name);
  if (!u) return undefined;
  const argv = args.trim() ? args.trim().split(/\s+/) : [];
  const lines = u.body.map((l) => l.replace(/\$argc\b/g, String(argv.length)).replace(/\$arg(\d+)\b/g, (m, i: string) => argv[Number(i)] ?? m));
  try {
    return { output: runScript(e, lines), moved: false, quit: false, error: false };
  } catch (err) {
    if (err instanceof EngineError) return { output: err.message, moved: false, quit: false, error: true };
    throw err;
  }
}

/** The help of a user-defined command (its `document`), or undefined. */
export function userHelp(e: Engine, name: string): string | undefined {
  const u = state(e).userCommands.get(name);
  return u ? u.doc ?? 'User-defined.' : undefined;
}

/**
 * After a stop at breakpoint `id`: its `commands` run; `silent` first hides the stop's own text;
 * `continue` inside goes on (and runs the commands of the next stop, up to a bound).
 */
export function afterStop(e: Engine, id: number | undefined, stopText: string): { text: string; silent: boolean } {
  const st = state(e);
  const out: string[] = [];
  let silent = false;
  let shown = stopText;
  for (let rounds = 0; id !== undefined && rounds < 1000; rounds++) {
    const body = st.bpCommands.get(id);
    if (!body?.length) break;
    const lines = body.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const quiet = lines[0] === 'silent';
    if (rounds === 0) silent = quiet;
    else if (!quiet) out.push(shown);
    let next: number | undefined;
    for (const line of quiet ? lines.slice(1) : lines) {
      if (/^(?:c|cont|continue)$/.test(line)) {
        const r = exec(e, 'continue');
        shown = r.output;
        next = e.lastBreakpoint;
        if (next === undefined) out.push(r.output);
        break;
      }
      const r = exec(e, line);
      if (r.output) out.push(r.output);
      if (r.error) { next = undefined; break; }
    }
    id = next;
  }
  return { text: out.join('\n'), silent };
}

// ---- threads, frames, listing ------------------------------------------------------------------------

/** `thread apply all|N M...|(x,y,z)... CMD`: the command in each thread of the focused block, then the focus back. */
function threadApply(e: Engine, args: string): string {
  const m = /^\s*(all|(?:\(\s*\d+\s*(?:,\s*\d+\s*){0,2}\)\s*|\d+(?:-\d+)?\s+)+)\s*(.+)$/s.exec(args);
  if (!m) throw new EngineError('Please specify a command following the thread ID list');
  const [bx, by] = e.launchInfo().block;
  const total = bx * by * e.launchInfo().block[2];
  const ids: number[] = [];
  if (m[1] === 'all') {
    for (let i = 0; i < total; i++) ids.push(i);
  } else {
    for (const tok of m[1]!.match(/\([^)]*\)|\d+-\d+|\d+/g) ?? []) {
      if (tok.startsWith('(')) {
        const [x = 0, y = 0, z = 0] = tok.replace(/[()\s]/g, '').split(',').map(Number);
        ids.push(x + y * bx + z * bx * by);
      } else if (tok.includes('-')) {
        const [a, b] = tok.split('-').map(Number);
        for (let i = a!; i <= b!; i++) ids.push(i);
      } else ids.push(Number(tok));
    }
  }
  const home = e.where();
  const out: string[] = [];
  try {
    for (const id of ids) {
      if (id < 0 || id >= total) throw new EngineError(`Invalid thread ID: ${id} (the block has threads 0..${total - 1})`);
      const t: [number, number, number] = [id % bx, Math.floor(id / bx) % by, Math.floor(id / (bx * by))];
      e.setFocus({ thread: t });
      // `all`: the threads that exist at this step (gdb applies to live threads only)
      if (m[1] === 'all' && ['not-started', 'exited', 'retired'].includes(e.where().state)) continue;
      const r = exec(e, m[2]!);
      out.push(`\nThread ${id} (block (${home.block.join(',')}) thread (${t.join(',')})):\n${r.output}`);
    }
  } finally {
    e.setFocus({ block: home.block, thread: home.thread });
  }
  return out.join('\n').replace(/^\n/, '');
}

/** `list`: gdb's, continuing after the last listing; `list -` the lines before it. */
function listCommand(e: Engine, args: string): string {
  const st = state(e);
  const size = Number(st.settings.get('listsize')) || 10;
  const t = args.trim();
  const step = e.position().step;
  let text: string;
  if ((t === '' || t === '+') && st.listed && st.listed.step === step) text = listText(e, `${st.listed.last + 1},${st.listed.last + size}`);
  else if (t === '-') {
    // before the last listing, or (none yet at this stop) before the one `list` would print, centred on the line
    const w = e.where();
    const first = st.listed?.step === step ? st.listed.first : w.file ? Math.max(1, w.line - Math.floor(size / 2)) : undefined;
    if (first === undefined) throw new EngineError('No default source file: list a line first.');
    if (first <= 1) throw new EngineError(`Already at the start of ${w.file ? baseName(w.file) : 'the file'}.`);
    text = listText(e, `${Math.max(1, first - size)},${first - 1}`);
  } else text = listText(e, t);
  const nums = [...text.matchAll(/^(?:=>|  )\s*(\d+)\t/gm)].map((x) => Number(x[1]));
  if (nums.length) st.listed = { first: nums[0]!, last: nums[nums.length - 1]!, step };
  else if (t === '' && st.listed) throw new EngineError(`Line number ${st.listed.last + 1} out of range.`);
  return text;
}

/** `info frame`: gdb's frame description for the selected frame. */
function infoFrame(e: Engine): string {
  const host = e.hostStop();
  if (host) throw new EngineError(`No stack: ${noDeviceThread(host)}.`);
  const frames = e.stack();
  const level = e.selectedFrame;
  const f = frames[level];
  if (!f) throw new EngineError('No stack.');
  const caller = frames[level + 1];
  const callee = level > 0 ? frames[level - 1] : undefined;
  const at = (x: typeof f): string => `${printName(x.function)}${x.file ? ` (${baseName(x.file)}:${x.line})` : ''}`;
  return [
    `Stack level ${level}, frame at ${printName(f.function)}:`,
    ` pc = ${f.pc} in ${at(f)}; saved pc = ${caller ? caller.pc : 'none'}`,
    caller ? ` called by frame at ${at(caller)}` : ' caller: none (the kernel\'s entry)',
    ...(callee ? [` caller of frame at ${at(callee)}`] : []),
    ` source language c++.`,
    ` block (${e.where().block.join(',')}) thread (${e.where().thread.join(',')})`,
  ].join('\n');
}

function infoSource(e: Engine): string {
  const w = e.where();
  if (!w.file) return `Current source file is ${e.ptxPath} (PTX: the kernel has no .loc lines here)\nSource language is asm.`;
  const src = e.sourceFile(w.file);
  return [`Current source file is ${w.file}`, ...(src ? [`Located in ${src.path}`, `Contains ${src.lines.length} lines.`] : ['(its text is not found: --source-dir DIR)']), 'Source language is c++.', 'Producing the kernel: nvcc (PTX with DWARF line information).'].join('\n');
}

function infoLine(e: Engine, args: string): string {
  const t = args.trim();
  if (!t) return lineText(e);
  const bp = e.resolveLocation(t);
  if (!bp.length) throw new EngineError(`Line ${t} has no code.`);
  const l = bp[0]!;
  return `Line ${l.line} of "${l.file ?? ''}" starts at ${signatureName(l.function)} instruction ${l.pc}${bp.length > 1 ? ` (and ${bp.length - 1} more place${bp.length === 2 ? '' : 's'})` : ''}.`;
}

function frameFunction(e: Engine, name: string): string {
  const frames = e.stack();
  const i = frames.findIndex((f) => namesFunction(name, f.function));
  if (i < 0) throw new EngineError(`No frame for function "${name}".`);
  e.selectFrame(i);
  return backtrace(e);
}

// ---- cuda-gdb focus queries ---------------------------------------------------------------------------

/**
 * `cuda block thread`, `cuda warp lane`, `cuda kernel`, ... without coordinates: the focus in
 * those terms, cuda-gdb's way. Undefined when the words give coordinates.
 */
export function cudaQuery(e: Engine, args: string): string | undefined {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (!words.length || !words.every((w) => ['kernel', 'grid', 'block', 'thread', 'warp', 'lane', 'sm', 'device'].includes(w))) return undefined;
  const w = e.where();
  const parts = words.map((k) => {
    switch (k) {
      case 'kernel': return `kernel ${e.currentLaunch().index}`;
      case 'grid': return 'grid 1';
      case 'block': return `block (${w.block.join(',')})`;
      case 'thread': return `thread (${w.thread.join(',')})`;
      case 'warp': return `warp ${w.warp}`;
      case 'lane': return `lane ${w.lane}`;
      case 'sm': return 'sm 0';
      default: return 'device 0';
    }
  });
  return parts.join(', ');
}

/** cuda-gdb's refusal of coordinates that cannot exist (a negative lane, lane 32 and up, warp past the block). */
export function checkCudaCoordinates(e: Engine, args: string): void {
  const lane = /\blane\s+(-?\d+)/.exec(args);
  const warp = /\bwarp\s+(-?\d+)/.exec(args);
  const b = e.launchInfo().block;
  const warps = Math.ceil((b[0] * b[1] * b[2]) / 32);
  if ((lane && (Number(lane[1]) < 0 || Number(lane[1]) > 31)) || (warp && (Number(warp[1]) < 0 || Number(warp[1]) >= warps)) || /\(\s*[^)]*-\d/.test(args)) {
    throw new EngineError('Invalid coordinates requested. CUDA focus unchanged.');
  }
}

// ---- rr ------------------------------------------------------------------------------------------------

function checkpoint(e: Engine): string {
  const st = state(e);
  const id = (st.checkpoints[st.checkpoints.length - 1]?.id ?? 0) + 1;
  const step = e.position().step;
  st.checkpoints.push({ id, step });
  return `Checkpoint ${id} at step ${step}.`;
}

function restart(e: Engine, args: string): Moved {
  const id = Number(args.trim());
  const c = state(e).checkpoints.find((x) => x.id === id);
  if (!c) throw new EngineError(args.trim() ? `No checkpoint number ${args.trim()}.` : 'Argument required (checkpoint id to restart).');
  return e.goto(e.at(c.step));
}

function infoCheckpoints(e: Engine): string {
  const cs = state(e).checkpoints;
  if (!cs.length) return 'No checkpoints.';
  return cs.map((c) => `${c.id}  step ${c.step}`).join('\n');
}

// ---- the commands --------------------------------------------------------------------------------------

export const LANGUAGE_COMMANDS: LangCmd[] = [
  { names: ['set'], help: 'set $VAR = EXPR | set var X = V | set print repeats|elements|pretty|address ... | set listsize N | set pagination|confirm on|off | set width|height N', run: (e, a) => setCommand(e, a) },
  { names: ['show'], help: 'show SETTING | show convenience: a setting, or the convenience variables', run: (e, a) => showCommand(e, a) },
  { names: ['echo'], help: 'echo TEXT: print TEXT (C escapes: \\n for a newline)', run: (_e, a) => unescape(a.replace(/^ /, '')).replace(/\n$/, '') },
  { names: ['printf'], help: 'printf "FORMAT", ARGS...: C formatting of values (%d %u %x %c %s %f %e %g %p)', run: (e, a) => printfCommand(e, a).replace(/\n$/, '') },
  { names: ['output'], help: 'output EXPR: the value alone (no $N =, not in the value history)', run: (e, a) => e.evaluate(substituteVariables(e, a)).value },
  {
    names: ['shell', '!'], help: 'shell CMD: run a shell command',
    run: (_e, a) => {
      const r = spawnSync('/bin/sh', ['-c', a], { encoding: 'utf8', timeout: 60_000 });
      return `${r.stdout ?? ''}${r.stderr ?? ''}`.replace(/\n$/, '');
    },
  },
  { names: ['source'], help: 'source FILE: run the commands in FILE', run: (e, a) => sourceCommand(e, a) },
  { names: ['define'], help: 'define NAME ... end: a command of your own ($arg0.., $argc)', run: (e, a) => defineCommand(e, a, 'define') },
  { names: ['document'], help: 'document NAME ... end: the help of a command of your own', run: (e, a) => defineCommand(e, a, 'document') },
  { names: ['commands'], help: 'commands [N...] ... end: commands to run at each stop at breakpoint N (silent first: no stop text; continue: go on)', run: (e, a) => commandsCommand(e, a) },
  { names: ['when'], help: 'when (rr): the current event, here the warp-step of the recording', run: (e) => `Current event: ${e.position().step}` },
  { names: ['checkpoint'], help: 'checkpoint (rr/gdb): remember this step; restart N comes back', run: (e) => checkpoint(e) },
  { names: ['restart'], help: 'restart N: back to checkpoint N', moves: true, run: (e, a) => restart(e, a) },
  { names: ['delete-checkpoint'], help: 'delete checkpoint N', run: (e, a) => { const cs = state(e).checkpoints; const i = cs.findIndex((c) => c.id === Number(a.trim())); if (i < 0) throw new EngineError(`No checkpoint number ${a.trim()}.`); cs.splice(i, 1); return ''; } },
];

/** `thread apply ...` and `frame function NAME` ride on the existing thread/frame commands. */
export function threadSub(e: Engine, args: string): string | undefined {
  const m = /^\s*apply\s+(.*)$/s.exec(args);
  if (m) return threadApply(e, m[1]!);
  return undefined;
}
export function frameSub(e: Engine, args: string): string | undefined {
  const m = /^\s*function\s+(\S+)\s*$/.exec(args);
  return m ? frameFunction(e, m[1]!) : undefined;
}
/** The `info` subcommands this module answers, or undefined. */
export function infoSub(e: Engine, args: string): string | undefined {
  const [what = '', ...rest] = args.trim().split(/\s+/);
  switch (what) {
    case 'frame': case 'f': return infoFrame(e);
    case 'source': return infoSource(e);
    case 'line': return infoLine(e, rest.join(' '));
    case 'checkpoints': case 'checkpoint': return infoCheckpoints(e);
    case 'inferiors': return '  Num  Description       Connection  Executable\n* 1    recorded launch   ptxdbg      ' + e.ptxPath;
    case 'display': return undefined;
    case 'threads': case 'thread': return undefined;
    default: return undefined;
  }
}
export { listCommand };
