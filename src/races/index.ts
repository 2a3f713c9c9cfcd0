/** The race and synchronisation checker: public API. */
export { RaceChecker, type RawAccess, type RawBarrierError, type RawRace } from './checker.js';
export { buildReport } from './report.js';
export { checkRun, checkSchedules, LaunchSetupError, type CheckedRun } from './run.js';
export { formatReport } from './format.js';
export { AddressNamer, elementPath } from './variables.js';
export type * from './types.js';
