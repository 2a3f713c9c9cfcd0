/**
 * `ptxdbg dap`: serve the Debug Adapter Protocol on stdin/stdout (how VS Code starts an adapter),
 * or with `--port N` on a TCP socket, one session per connection.
 */
import { createServer } from 'node:net';
import type { CommandConsole, Engine } from '../../engine/index.js';
import { type ProgramOpener, PtxDebugSession } from './adapter.js';

/**
 * `consoleFor`: the command language the Debug Console's `-exec` lines run in (the CLI hands in
 * the gdb language's); `openProgram`: how a whole CUDA program is run under the recorder (the
 * CLI hands in the host side's).
 */
export function runDap(port: number | undefined, consoleFor?: (e: Engine) => CommandConsole, openProgram?: ProgramOpener): Promise<number> {
  if (port === undefined) {
    const s = new PtxDebugSession(consoleFor, openProgram);
    process.on('SIGTERM', () => s.shutdown());
    s.start(process.stdin, process.stdout);
    // the adapter ends the process on disconnect; until then the streams keep it alive
    return new Promise<number>(() => undefined);
  }
  return new Promise<number>((_, reject) => {
    const server = createServer((socket) => {
      const s = new PtxDebugSession(consoleFor, openProgram);
      s.setRunAsServer(true);
      s.start(socket, socket);
    });
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      // port 0 picks a free port: say which, so a client (or a test) can connect
      const a = server.address();
      process.stderr.write(`ptxdbg dap: listening on 127.0.0.1:${a && typeof a === 'object' ? a.port : port}\n`);
    });
  });
}
