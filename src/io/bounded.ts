/**
 * Reading a file named by the user without trusting it: a directory, a device such as
 * /dev/zero, or a file far larger than what is needed is refused with a message instead of an
 * EISDIR exception or a read that never ends. At most `max + 1` bytes are ever read.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export class ReadError extends Error {}

/** PTX, CUDA source and command files: a 20 MB `-G` PTX is large; 512 MiB is not a source file. */
export const MAX_SOURCE_BYTES = 512 * 2 ** 20;
/** What is read from something that is not a regular file (a device, a pipe). */
const MAX_STREAM_BYTES = 64 * 2 ** 20;

/** The file's bytes, if it is readable and holds at most `max` bytes. */
export function readBounded(path: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new ReadError(`cannot read ${path}: ${describeErrno(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new ReadError(`${path} is a directory, not a file`);
    if (st.isFile() && st.size > max) throw new ReadError(`${path} is ${st.size} bytes, more than the ${max} expected`);
    // Devices and pipes have no size: read until the end or one byte past the limit (a lower one:
    // nobody pipes a 2 GiB trace, and /dev/zero should be refused in milliseconds).
    if (!st.isFile()) max = Math.min(max, MAX_STREAM_BYTES);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(1 << 20, max + 1 - total);
      if (want <= 0) throw new ReadError(`${path} holds more than the ${max} bytes expected`);
      const b = Buffer.allocUnsafe(want);
      let n: number;
      try {
        n = readSync(fd, b, 0, want, null);
      } catch (e) {
        throw new ReadError(`cannot read ${path}: ${describeErrno(e)}`);
      }
      if (n === 0) break;
      chunks.push(n === want ? b : b.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** UTF-8 text of a file of at most `max` bytes. */
export function readBoundedText(path: string, max: number): string {
  return readBounded(path, max).toString('utf8');
}

function describeErrno(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT': return 'no such file';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'is a directory';
    default: return code ?? String(e);
  }
}
