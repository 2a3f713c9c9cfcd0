/**
 * The call stack VS Code shows. At a trap or assert the innermost frames are the runtime's
 * (`__trap`, `__assertfail`: no source line); VS Code opens the top frame, so there the stack
 * starts at the user's line that called them, as gdb selects that frame (`bt` marks `*#1`).
 */
import type { FrameInfo } from '../../engine/index.js';

/** `all` without its leading sourceless frames at a fault stop (unchanged if no frame has a source). */
export function userFrames(all: readonly FrameInfo[], atFault: boolean): readonly FrameInfo[] {
  if (!atFault) return all;
  const first = all.findIndex((f) => f.file !== undefined);
  return first > 0 ? all.slice(first) : all;
}
