/**
 * Mounting the Ink tree. Loaded lazily by runTui, after the environment is settled (Ink and
 * React read NODE_ENV / CI when they are first imported).
 */
import React from 'react';
import { render } from 'ink';
import type { CommandConsole, Engine } from '#engine';
import { App } from './app.js';
import { Controller } from './controller.js';
import { ErrorScreen } from './error.js';

export interface MountOptions {
  engine: Engine | undefined;
  console: CommandConsole | undefined;
  error: string | undefined;
  title: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  sourceDir: string | undefined;
}

/** Render until the user quits; resolves with the exit code. */
export async function mount(o: MountOptions): Promise<number> {
  let node: React.JSX.Element;
  if (o.engine && o.console && o.error === undefined) {
    const ctl = new Controller(o.engine, o.console, o.sourceDir, o.stdout.columns || 80, o.stdout.rows || 24);
    node = <App ctl={ctl} title={o.title} />;
  } else {
    node = <ErrorScreen title={o.title} error={o.error ?? 'no debugging session'} />;
  }
  const ink = render(node, {
    stdout: o.stdout, stdin: o.stdin, exitOnCtrlC: false, patchConsole: false,
    // Not incrementalRendering: in Ink 6.8 it mispositions frames that end with a newline
    // (ours do: a frame of rows-1 lines). Full frames go out in one write inside a
    // synchronized-update bracket, which is what keeps them flicker-free.
    // 60 fps: a held key is not throttled to Ink's default 30.
    maxFps: 60,
  });
  const result = await ink.waitUntilExit();
  return typeof result === 'number' ? result : 0;
}
