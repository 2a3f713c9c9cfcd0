/**
 * Names as compute-sanitizer prints them (`saxpy(int, float, const float *, float *)`): the
 * demangler of src/ptx/demangle.ts in compute-sanitizer's spelling.
 */
export { demangle, displayName } from '../ptx/demangle.js';
