/**
 * Exit codes, the same for every subcommand (README, CLI reference): 0 success; 1 invalid PTX,
 * races or barrier errors found, or a failed debugger command in batch mode; 2 bad usage, a file
 * that cannot be read, or a bad launch; 3 the kernel faulted. 70 (internal error) is a bug.
 */
import type { ErrorCode } from '../engine/errors.js';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;
export const EXIT_FAULT = 3;
export const EXIT_INTERNAL = 70;

/** The exit code for a session that could not be opened, by the engine's error code. */
export function exitForSession(code: ErrorCode): number {
  return code === 'read-failed' || code === 'bad-launch' || code === 'cannot-launch' ? EXIT_USAGE : EXIT_FINDINGS;
}
