/**
 * DAP on a whole CUDA program (issue #25): how the program is run (the CLI hands in a
 * ProgramOpener), and what the adapter keeps across stops: the program's output sent so far (each
 * output event once, in program order, as execution first passes it; at the program's end, or
 * when the session ends, everything after the last launch too) and gdb's pending breakpoints
 * (unverified until a launch with their code is recorded, then a `changed` event).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Breakpoint, Source, StackFrame } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { type BreakpointResult, comparePositions, type Engine, type Position, positionOf } from '../../engine/index.js';

/** What a whole program is run with: the executable, its arguments, where and with what environment. */
export interface ProgramRun {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string | undefined;
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly record: readonly string[] | undefined;
  readonly schedule: 'rr' | 'random' | undefined;
  readonly seed: number | undefined;
  readonly maxSteps: number | undefined;
  /** A line for the user while the program runs (recording progress, the program's exit). */
  readonly say: (line: string) => void;
}

/**
 * Runs a whole program under the recorder and opens the engine on it (the CLI hands in the
 * host side's; DAP itself imports no host code). Rejects with an EngineError the user can read.
 */
export type ProgramOpener = (run: ProgramRun) => Promise<Engine>;

/**
 * Whether `path` is a program to run rather than a file to read: an ELF file, or any regular file
 * with an execute bit (a script that starts the program).
 */
export function isProgram(path: string): boolean {
  try {
    const st = statSync(path);
    if (!st.isFile()) return false;
    if (st.mode & 0o111) return true;
    const fd = openSync(path, 'r');
    const magic = Buffer.alloc(4);
    try { readSync(fd, magic, 0, 4, 0); } finally { closeSync(fd); }
    return magic.toString('latin1') === '\x7fELF';
  } catch {
    return false;
  }
}

/** Where an output event goes in the Debug Console. */
export type Send = (text: string, stream: 'stdout' | 'stderr') => void;

/** A whole program's output and pending breakpoints, as sent to the client so far. */
export class ProgramFeed {
  /** The furthest position whose output was sent. */
  private sent: Position | undefined;
  /**
   * Breakpoints answered `verified: false` because no launch reached so far has their code, by
   * id, with the line the client asked for (a PTX file's breakpoints keep theirs).
   */
  private readonly pending = new Map<number, { readonly askedLine: number | undefined }>();

  /** The output from the last one sent up to the current position (at the program's end: all of it). */
  outputPassed(e: Engine, send: Send): void {
    // at the program's end its output after the last launch has been passed too: its final host
    // lines (the PASS/FAIL line)
    this.sendUpTo(e, atProgramEnd(e) ? afterAll(e) : e.position(), send);
  }

  /** Every output not sent yet (the session ends: nothing is passed later). */
  flush(e: Engine, send: Send): void {
    if (e.isProgram) this.sendUpTo(e, afterAll(e), send);
  }

  private sendUpTo(e: Engine, here: Position, send: Send): void {
    const from = this.sent;
    if (from !== undefined && comparePositions(here, from) <= 0) return;
    for (const ev of e.programEvents()) {
      if (ev.kind !== 'output' || comparePositions(ev.position, here) > 0 || (from !== undefined && comparePositions(ev.position, from) <= 0)) continue;
      send(ev.detail, ev.what === 'stderr' ? 'stderr' : 'stdout');
    }
    this.sent = here;
  }

  /** Keep the pending answers of a set*Breakpoints request; forget those the engine no longer has (replaced). */
  notePending(e: Engine, rs: readonly BreakpointResult[], askedLine: (i: number) => number | undefined): void {
    if (!e.isProgram) return;
    rs.forEach((r, i) => { if (!r.verified && r.id !== undefined) this.pending.set(r.id, { askedLine: askedLine(i) }); });
    const live = new Set(e.breakpoints().map((b) => b.id));
    for (const id of this.pending.keys()) if (!live.has(id)) this.pending.delete(id);
  }

  /** Pending breakpoints that a launch recorded since has the code of: verified, at the resolved line (DAP's `changed` events). */
  resolved(e: Engine): DebugProtocol.Breakpoint[] {
    const out: DebugProtocol.Breakpoint[] = [];
    for (const [id, p] of this.pending) {
      const at = e.breakpointResolved(id);
      if (!at) continue;
      this.pending.delete(id);
      const b = new Breakpoint(true, p.askedLine ?? at.line) as DebugProtocol.Breakpoint;
      b.id = id;
      out.push(b);
    }
    return out;
  }
}

/** Whether the position is the end of the program's last recorded launch (nothing runs after it). */
function atProgramEnd(e: Engine): boolean {
  const last = e.launches().filter((l) => l.steps !== undefined).at(-1);
  return last !== undefined && e.position().launch === last.index && e.position().step === e.total;
}

/** A position after every event of the program (those after the last launch sit before launch count + 1). */
const afterAll = (e: Engine): Position => positionOf(e.launches().length + 1, 0);

/**
 * The call stack at a host event (undefined elsewhere): no device thread runs there, so the one
 * frame is the host call (`cudaMemcpy` at offbyone.cu:39), its source the program's file when it
 * can be found. `frameId` registers the frame (level 0) and gives its id.
 */
export function hostStackTrace(e: Engine, frameId: () => number): DebugProtocol.StackTraceResponse['body'] | undefined {
  const host = e.hostStop();
  if (!host) return undefined;
  // the program's own file of the call (the engine finds it by the base name its DWARF gives)
  const found = e.hostSource();
  const src = found ? new Source(basename(found.path), found.path) : undefined;
  const sf = new StackFrame(frameId(), host.what, src, found ? host.sourceLine ?? 0 : 0, 1) as DebugProtocol.StackFrame;
  return { stackFrames: [sf], totalFrames: 1 };
}
