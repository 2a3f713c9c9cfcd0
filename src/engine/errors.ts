/**
 * The engine's error catalogue: every request that cannot be honoured throws an EngineError with
 * one of these codes, so front ends can react by code (DAP maps them to error responses, the gdb
 * language prints the message) instead of matching message text.
 */
import { TraceError } from '../trace/trace.js';

export const ERROR_CODES = {
  'read-failed': 'a file named by the user could not be read',
  'bad-ptx': 'the PTX does not parse or resolve',
  'bad-trace': 'a trace file that is not a valid recording of this build (truncated, corrupted, mismatched)',
  'bad-launch': 'the launch (file, flags or object) is not valid for the kernel',
  'cannot-launch': 'the machine refused the launch (memory, limits)',
  'out-of-range': 'a step, frame, lane or coordinate outside what exists',
  'bad-breakpoint': 'a breakpoint location that resolves to no instruction',
  'no-such-breakpoint': 'a breakpoint or watchpoint id that does not exist',
  'bad-watch': 'a watch target that is not writable memory of the focused thread',
  'bad-expression': 'an expression that does not parse or evaluate',
  'no-race': 'a race number that the race report does not have',
  'bad-write': 'an assignment that cannot be made (not an lvalue, read-only or unmapped memory)',
  'bad-request': 'any other request the engine cannot honour',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class EngineError extends Error {
  constructor(message: string, readonly code: ErrorCode = 'bad-request') {
    super(message);
  }
}


/**
 * The message of an error a request may end with and a front end shows as text: an EngineError
 * (print errors are ones), or a damaged recording (the trace's TraceError) or a bound exceeded
 * (RangeError). undefined for anything else, which is a bug and propagates.
 */
export function requestFailure(e: unknown): string | undefined {
  return e instanceof EngineError || e instanceof TraceError || e instanceof RangeError ? e.message : undefined;
}
