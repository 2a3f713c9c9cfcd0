/**
 * What the panes show, derived from the session and memoised per generation: a generation ends
 * whenever a command runs (it may move, change focus, add a breakpoint...). Pure UI changes
 * (scrolling, cursors, pane focus) never touch the session, so a key press that only scrolls
 * costs a render and nothing else, and a step costs each query once whatever the pane count.
 */
import type {
  BreakpointInfo, Engine, LaunchInfo, ProgramEvent, RaceRow, RegisterValue, TimelineMark, WarpInfo, Where,
} from '#engine';
import { comparePositions, raceReportRows } from '#engine';
import type { Style } from './ui.js';
import { DrawnSources, type SourceFile } from './sources.js';
import { baseName, lines, sanitize } from './text.js';

export class Model {
  readonly sources: DrawnSources;
  private ptx: { path: string; lines: readonly string[] } | undefined;
  private launchList: readonly LaunchInfo[] | undefined;
  private outputEvents: readonly ProgramEvent[] | undefined;
  private generation = 0;
  private memo = new Map<string, unknown>();
  /** Per function: the PTX line of each instruction asked about. */
  private readonly instrLines = new Map<string, Map<number, number>>();

  constructor(readonly engine: Engine, sourceDir: string | undefined) {
    if (sourceDir !== undefined) engine.setSourceDir(sourceDir);
    this.sources = new DrawnSources((name) => engine.sourceFile(name));
  }

  /**
   * PTX text split into display lines (tabs expanded): the module of the current launch, which
   * in a whole program changes as the position moves into a launch of another module.
   */
  get ptxLines(): readonly string[] {
    const path = this.engine.ptxPath;
    if (this.ptx?.path !== path) {
      this.ptx = { path, lines: lines(this.engine.ptxText).map((l) => sanitize(l, 8)) };
      this.instrLines.clear();
    }
    return this.ptx.lines;
  }

  /** The program's launches (one, numbered 0, for a single kernel): fixed for the session. */
  launches(): readonly LaunchInfo[] {
    return (this.launchList ??= this.engine.launches());
  }

  /** The launch in focus and the launch count, when the program made several (else undefined). */
  launchOf(): { index: number; count: number; info: LaunchInfo | undefined } | undefined {
    const all = this.launches();
    if (all.length < 2) return undefined;
    const index = this.engine.position().launch;
    return { index, count: all.length, info: all.find((l) => l.index === index) };
  }

  get gen(): number {
    return this.generation;
  }

  /** Forget everything derived from the session's state (after any command). */
  invalidate(): void {
    this.generation++;
    this.memo = new Map();
  }

  /** Drop this generation's memoised values whose key starts with `prefix`. */
  forget(prefix: string): void {
    for (const k of [...this.memo.keys()]) if (k.startsWith(prefix)) this.memo.delete(k);
  }

  /** Compute once per generation. */
  cached<T>(key: string, f: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const v = f();
    this.memo.set(key, v);
    return v;
  }

  where(): Where { return this.cached('where', () => this.engine.where()); }
  warps(): WarpInfo[] { return this.cached('warps', () => this.engine.warps()); }
  registers(): RegisterValue[] { return this.cached('registers', () => this.engine.registers()); }
  breakpoints(): readonly BreakpointInfo[] { return this.cached('breakpoints', () => this.engine.breakpoints()); }
  output(): string { return this.cached('output', () => this.engine.output()); }

  /**
   * The Output pane's rows. A single kernel: its printf output so far. A whole program: the
   * program's stdout/stderr and every launch's printf in program order, up to here as printed,
   * then a marker of the current position and the rest (what the program prints later) dimmed, so
   * the output is read at its place on the timeline.
   */
  outputRows(): readonly { text: string; style?: Style }[] {
    return this.cached('outputRows', () => {
      const mine = lines(this.output());
      if (!this.engine.isProgram) return mine.map((text) => ({ text }));
      const here = this.engine.position();
      const events = (this.outputEvents ??= this.engine.programEvents().filter((e) => e.kind === 'output'));
      const past = events.filter((e) => comparePositions(e.position, here) <= 0).map((e) => e.detail).join('');
      const later = events.filter((e) => comparePositions(e.position, here) > 0).map((e) => e.detail).join('');
      return [
        ...lines(past).map((text) => ({ text })),
        ...mine.map((text) => ({ text })),
        { text: `── launch ${here.launch} step ${here.step} ──`, style: { color: 'cyan' } },
        ...lines(later).map((text) => ({ text, style: { dim: true } })),
      ];
    });
  }

  /** Marks in timeline order (for { } and the timeline bar). */
  marks(): readonly TimelineMark[] {
    return this.cached('marks', () => [...this.engine.marks()].sort((a, b) => comparePositions(a.at, b.at)));
  }

  /** 1-based PTX line of an instruction, 0 when unknown. */
  ptxLine(fn: string, pc: number): number {
    let table = this.instrLines.get(fn);
    if (!table) this.instrLines.set(fn, (table = new Map()));
    let line = table.get(pc);
    if (line === undefined) table.set(pc, (line = this.engine.ptxLine(fn, pc)));
    return line;
  }

  /**
   * Source location of an instruction, or of the next one that has a `.loc` (a thread that has
   * not started yet sits on the entry, whose first instructions often have none).
   */
  locAt(fn: string, pc: number): { file: string; line: number } | undefined {
    return this.engine.instructionSource(fn, pc);
  }

  /** The source file of the current position, or undefined (then the Source pane shows PTX). */
  currentSource(): SourceFile | undefined {
    const file = this.where().file;
    return file === undefined ? undefined : this.sources.get(file);
  }

  /** Source lines with a breakpoint, per file base name. */
  sourceBreakpoints(): Map<string, Map<number, boolean>> {
    return this.cached('srcBps', () => {
      const out = new Map<string, Map<number, boolean>>();
      for (const b of this.breakpoints()) {
        for (const l of b.locations) {
          if (l.file === undefined) continue;
          const key = baseName(l.file);
          let m = out.get(key);
          if (!m) out.set(key, (m = new Map()));
          m.set(l.line, (m.get(l.line) ?? false) || b.enabled);
        }
      }
      return out;
    });
  }

  /** PTX lines with a breakpoint (line → enabled). */
  ptxBreakpoints(): Map<number, boolean> {
    return this.cached('ptxBps', () => {
      const out = new Map<number, boolean>();
      for (const b of this.breakpoints()) {
        for (const l of b.locations) {
          const line = this.ptxLine(l.function, l.pc);
          if (line > 0) out.set(line, (out.get(line) ?? false) || b.enabled);
        }
      }
      return out;
    });
  }

  /** Breakpoint ids at a source line / PTX line (for toggling with `b`). */
  breakpointsAtSource(file: string, line: number): number[] {
    const key = baseName(file);
    return this.breakpoints().filter((b) => b.locations.some((l) => l.file !== undefined && baseName(l.file) === key && l.line === line)).map((b) => b.id);
  }

  breakpointsAtPtx(line: number): number[] {
    return this.breakpoints().filter((b) => b.locations.some((l) => this.ptxLine(l.function, l.pc) === line)).map((b) => b.id);
  }

  /** The race report's rows, each knowing its race (the checker runs once per session). */
  raceRows(): { rows: readonly RaceRow[]; error: boolean } {
    return this.cached('raceRows', () => {
      try {
        const rows = raceReportRows(this.engine);
        // the report adds timeline marks: recompute those
        this.forget('marks');
        this.forget('buckets:');
        return { rows, error: false };
      } catch (e) {
        return { rows: [{ text: e instanceof Error ? e.message : String(e), race: undefined }], error: true };
      }
    });
  }
}
