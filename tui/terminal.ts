/**
 * Full-screen mode and its undoing. Ink 6 has no alternate-screen option, so we switch to the
 * alternate screen ourselves and make sure every way out restores the user's terminal: normal
 * quit, Ctrl-C, a signal, an uncaught exception, process exit.
 */

/**
 * Mouse reporting: 1000 reports presses, releases and the wheel; 1006 has them sent as SGR
 * sequences (no 223-column limit, unambiguous release). Turned off first on the way out, or
 * the user's shell would receive the reports as typed text.
 */
export const MOUSE_ON = '\x1b[?1000h\x1b[?1006h';
export const MOUSE_OFF = '\x1b[?1006l\x1b[?1000l';
const ENTER = '\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l' + MOUSE_ON;
const LEAVE = MOUSE_OFF + '\x1b[?25h\x1b[?1049l';

export interface ScreenGuard {
  /** Stop mouse reporting, leave the alternate screen, show the cursor, leave raw mode (idempotent). */
  restore(): void;
  /** Remove the process handlers. */
  dispose(): void;
}

export function enterFullScreen(stdout: NodeJS.WriteStream, stdin: NodeJS.ReadStream): ScreenGuard {
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    try {
      if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(false);
    } catch { /* stdin may already be closed */ }
    try {
      stdout.write(LEAVE);
    } catch { /* stdout may already be closed */ }
  };
  stdout.write(ENTER);

  // Process-wide handlers only when we own the real terminal (not for test streams).
  const real = stdout === process.stdout;
  const onExit = (): void => restore();
  const onSignal = (sig: NodeJS.Signals): void => {
    // SIGHUP: the terminal is gone, there is nothing to restore (writing would fail).
    if (sig === 'SIGHUP') restored = true;
    restore();
    process.exit(sig === 'SIGINT' ? 130 : sig === 'SIGHUP' ? 129 : 143);
  };
  const onCrash = (e: unknown): void => {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EIO' || code === 'EPIPE') process.exit(1); // the terminal went away under us
    restore();
    process.stderr.write(`ptxdbg: internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(70);
  };
  // one table, so installing and removing the handlers cannot drift apart
  const handlers: [string, (arg: never) => void][] = [
    ['exit', onExit], ['SIGINT', onSignal], ['SIGTERM', onSignal], ['SIGHUP', onSignal],
    ['uncaughtException', onCrash], ['unhandledRejection', onCrash],
  ];
  if (real) for (const [ev, h] of handlers) process.on(ev, h as () => void);
  return {
    restore,
    dispose(): void {
      if (!real) return;
      for (const [ev, h] of handlers) process.off(ev, h as () => void);
    },
  };
}
