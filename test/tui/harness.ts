/**
 * Runs the real TUI (runTui → Ink) against an in-memory terminal (@xterm/headless): a fake TTY
 * stdout feeds the emulator, a fake TTY stdin carries the keys. Assertions read the emulator's
 * cells, and waits poll the screen until a condition holds (no fixed sleeps).
 *
 * Import this module only after the environment is prepared (see env.ts): Ink and chalk decide
 * about CI mode and colours when first loaded.
 */
import { PassThrough, Writable } from 'node:stream';
import xterm from '@xterm/headless';
import type { Session as DebugSession } from '../../src/engine/session.js';
import type { CommandConsole, Engine } from '../../src/engine/index.js';
import { runTui } from '../../tui/index.js';
import { tuiOf } from '../../src/cli/tui-console.js';

const { Terminal } = xterm;
type XTerminal = InstanceType<typeof Terminal>;

/** A writable "TTY": what Ink writes goes into the emulator. */
export class FakeTtyOut extends Writable {
  readonly isTTY = true;
  /** Raw bytes written, for checks on the frames themselves. */
  raw = '';
  constructor(private readonly term: XTerminal, public columns: number, public rows: number) {
    super({ decodeStrings: false });
  }

  /**
   * Hands the chunk to the emulator's queue and completes at once. Completing only after the
   * emulator parsed it (as this once did) made the stream hold Ink's next writes back, so a
   * flush() marker could be queued ahead of the rest of a frame; on a loaded machine the emulator
   * then parsed that frame in slices after the marker and the test read a half-drawn screen (the
   * help box's border still on top, the new panes below). Queued in order, a marker's callback
   * runs only when every byte written before it is on the screen.
   */
  override _write(chunk: string | Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    const s = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.raw += s;
    this.term.write(s);
    cb();
  }

  getColorDepth(): number { return 24; }
  hasColors(): boolean { return true; }
}

/** A readable "TTY" with the raw-mode API Ink's useInput needs. */
class FakeTtyIn extends PassThrough {
  readonly isTTY = true;
  isRaw = false;
  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }
  ref(): this { return this; }
  unref(): this { return this; }
}

export const KEY = {
  up: '\x1b[A', down: '\x1b[B', right: '\x1b[C', left: '\x1b[D',
  pageUp: '\x1b[5~', pageDown: '\x1b[6~', enter: '\r', tab: '\t', escape: '\x1b', backspace: '\x7f', ctrlC: '\x03',
} as const;

export interface StartOptions {
  session?: DebugSession;
  /** An engine opened another way (a whole program) and its console, instead of `session`. */
  debug?: { engine: Engine; console: CommandConsole };
  error?: string;
  title?: string;
  cols?: number;
  rows?: number;
  sourceDir?: string;
}

export class TuiHarness {
  readonly term: XTerminal;
  readonly out: FakeTtyOut;
  readonly inp: FakeTtyIn;
  exitCode: Promise<number>;

  private constructor(opts: StartOptions) {
    const cols = opts.cols ?? 100;
    const rows = opts.rows ?? 30;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, convertEol: true, scrollback: 0 });
    this.out = new FakeTtyOut(this.term, cols, rows);
    this.inp = new FakeTtyIn();
    this.exitCode = runTui({
      title: opts.title ?? 'test', stdout: this.out as unknown as NodeJS.WriteStream, stdin: this.inp as unknown as NodeJS.ReadStream,
      ...(opts.session ? tuiOf(opts.session) : {}), ...(opts.debug ?? {}), ...(opts.error !== undefined ? { error: opts.error } : {}),
      ...(opts.sourceDir ? { sourceDir: opts.sourceDir } : {}),
    });
  }

  static async start(opts: StartOptions, ready: (lines: string[]) => boolean = (l) => l.some((x) => x.trim() !== '')): Promise<TuiHarness> {
    const h = new TuiHarness(opts);
    await h.waitFor(ready);
    return h;
  }

  get rows(): number { return this.term.rows; }
  get cols(): number { return this.term.cols; }

  /** Lines of the visible screen. */
  lines(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /** Whether any screen line continues the previous one (something was wider than the terminal). */
  wrappedRows(): number[] {
    const b = this.term.buffer.active;
    const out: number[] = [];
    for (let y = 0; y < this.term.rows; y++) if (b.getLine(b.viewportY + y)?.isWrapped) out.push(y);
    return out;
  }

  /** Cell attributes at (x, y). */
  cell(x: number, y: number): { ch: string; bold: boolean; inverse: boolean; underline: boolean; fg: number; bg: number } | undefined {
    const b = this.term.buffer.active;
    const c = b.getLine(b.viewportY + y)?.getCell(x);
    if (!c) return undefined;
    return { ch: c.getChars(), bold: c.isBold() !== 0, inverse: c.isInverse() !== 0, underline: c.isUnderline() !== 0, fg: c.getFgColor(), bg: c.getBgColor() };
  }

  /** Let the emulator finish parsing everything written so far (the callback fires after all earlier writes). */
  flush(): Promise<void> {
    return new Promise((r) => this.term.write('', () => r()));
  }

  /** Poll the screen until `pred` holds; fail with the screen after `timeoutMs`. */
  async waitFor(pred: (lines: string[]) => boolean, timeoutMs = 10000, what = 'condition'): Promise<string[]> {
    const t0 = Date.now();
    for (;;) {
      await this.flush();
      const ls = this.lines();
      if (pred(ls)) return ls;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}; screen:\n${ls.join('\n')}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Type keys (one event per element, as a person would). */
  press(...keys: string[]): void {
    for (const k of keys) this.inp.write(k);
  }

  /** Press a key and wait until the screen satisfies `pred`. */
  async pressAndWait(key: string, pred: (lines: string[]) => boolean, what?: string): Promise<string[]> {
    this.press(key);
    return this.waitFor(pred, 10000, what ?? `screen after ${JSON.stringify(key)}`);
  }

  /** Resize the terminal as a window manager would: the emulator, the TTY's size, SIGWINCH. */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.out.columns = cols;
    this.out.rows = rows;
    this.out.emit('resize');
  }

  /** Quit with q and return the exit code. */
  async quit(): Promise<number> {
    this.press('q');
    return this.exitCode;
  }

  dispose(): void {
    this.inp.end();
    this.term.dispose();
  }
}

/** Row index of the first line matching. */
export function rowOf(lines: string[], re: RegExp): number {
  return lines.findIndex((l) => re.test(l));
}
