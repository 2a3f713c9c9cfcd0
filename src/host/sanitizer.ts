/**
 * One `ptxdbg sanitize` session with compute-sanitizer's options and their documented meaning:
 * which launches are checked (--kernel-name / --kernel-name-exclude filters, --launch-skip,
 * --launch-count), where records go (stdout, --log-file, --save), which are printed
 * (--print-level, --print-limit), the counts behind the summaries, and the exit code
 * (--error-exitcode). The records themselves are sanitize.ts's.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { PREFIX } from './sanitize.js';

export type SanitizeTool = 'memcheck' | 'racecheck' | 'synccheck' | 'initcheck';
export type PrintLevel = 'info' | 'warn' | 'error' | 'fatal';
const LEVELS: readonly PrintLevel[] = ['info', 'warn', 'error', 'fatal'];

/** A --kernel-name filter component: the mangled name, a substring of it, or a regex found in it. */
export interface KernelFilter { name?: string; substring?: string; regex?: RegExp }

export interface SanitizeOptions {
  tool: SanitizeTool;
  /** Records printed at most (0: all); every one still counts in the summary. */
  printLimit: number;
  /** The exit code when the program exits 0 but errors were found (0: the program's). */
  errorExitcode: number;
  kernelName: KernelFilter[];
  kernelNameExclude: KernelFilter[];
  launchSkip: number;
  /** Launches checked after the skipped ones (0: all). */
  launchCount: number;
  logFile: string | undefined;
  save: string | undefined;
  printLevel: PrintLevel;
  leakCheck: boolean;
  racecheckReport: 'hazard' | 'analysis' | 'all';
  /** What a memory error does: end the context (later calls fail) or only the kernel. */
  destroyOnDeviceError: 'context' | 'kernel';
  /** --check-api-memory-access: report copies and memsets the device refused. */
  checkApiMemoryAccess: boolean;
}

export const DEFAULT_SANITIZE: Omit<SanitizeOptions, 'tool'> = {
  printLimit: 100, errorExitcode: 0, kernelName: [], kernelNameExclude: [], launchSkip: 0, launchCount: 0,
  logFile: undefined, save: undefined, printLevel: 'warn', leakCheck: false, racecheckReport: 'analysis',
  destroyOnDeviceError: 'context', checkApiMemoryAccess: true,
};

export class FilterError extends Error {}

/**
 * A --kernel-name value: `kns=sub,kne=_Z5gammaPi` or `regex=[a-z]{7}` (long keys kernel_substring,
 * kernel_name too). Each component is a filter of its own, as the documentation's example
 * (`--kernel-name-exclude kns=delta,kne=_Z5gammaPi` leaves only epsilon checked) reads it.
 * compute-sanitizer ignores a filter with a bad component; ptxdbg says so (FilterError).
 */
export function parseFilter(spec: string): KernelFilter[] {
  // a regex may hold commas: it is given alone
  const parts = spec.startsWith('regex=') ? [spec] : spec.split(',');
  return parts.map((part) => {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (!value) throw new FilterError(`'${part}' has no value`);
    if (key === 'kne' || key === 'kernel_name') return { name: value };
    if (key === 'kns' || key === 'kernel_substring') return { substring: value };
    if (key === 'regex') {
      try { return { regex: new RegExp(value) }; } catch { throw new FilterError(`'${value}' is not a regular expression`); }
    }
    throw new FilterError(`unknown key '${key}' (kne, kns or regex)`);
  });
}

const matches = (f: KernelFilter, mangled: string): boolean =>
  (f.name === undefined || f.name === mangled) && (f.substring === undefined || mangled.includes(f.substring)) && (f.regex === undefined || f.regex.test(mangled));

/** --log-file / --save names: %p this process's id, %q{VAR} an environment variable, %% a %. */
export function expandName(name: string): string {
  return name.replace(/%(%|p|q\{([^}]*)\})/g, (_m, what: string, env: string | undefined) =>
    what === '%' ? '%' : what === 'p' ? String(process.pid) : process.env[env ?? ''] ?? '');
}

export class SanitizeSession {
  /** Errors found (all, printed or not). */
  errors = 0;
  /** racecheck: hazard records displayed, by severity. */
  readonly hazards = { errors: 0, warnings: 0 };
  /** --leak-check full: what was still allocated when the context went. */
  readonly leaks = { bytes: 0, allocations: 0 };
  private printed = 0;
  private matched = 0;
  private readonly fds: number[] = [];
  private readonly toStdout: boolean;

  constructor(readonly o: SanitizeOptions) {
    this.toStdout = o.logFile === undefined;
    if (o.logFile !== undefined) this.fds.push(openSync(expandName(o.logFile), 'w'));
    if (o.save !== undefined) this.fds.push(openSync(expandName(o.save), 'w'));
  }

  private write(text: string): void {
    if (this.toStdout) process.stdout.write(text);
    for (const fd of this.fds) writeSync(fd, text);
  }

  line(text: string): void { this.write(`${PREFIX}${text}`.trimEnd() + '\n'); }

  banner(): void { this.line('COMPUTE-SANITIZER'); }

  /** Whether this launch is checked: it passes the filters and the skip/count window. */
  checks(kernel: string): boolean {
    const o = this.o;
    if (o.kernelName.length > 0 && !o.kernelName.some((f) => matches(f, kernel))) return false;
    if (o.kernelNameExclude.some((f) => matches(f, kernel))) return false;
    // only launches that pass the filters count towards --launch-skip and --launch-count
    const k = this.matched++;
    return k >= o.launchSkip && (o.launchCount === 0 || k < o.launchSkip + o.launchCount);
  }

  /**
   * One record at `level`: counted (errors, `times` over; racecheck hazards by severity),
   * printed when the level is at or above --print-level and --print-limit is not reached, then a
   * bare prefix line. A `note` is printed and not counted.
   */
  record(lines: readonly string[], level: 'error' | 'warn' | 'info' = 'error', kind: 'error' | 'hazard' | 'note' = 'error', times = 1): void {
    const shown = LEVELS.indexOf(level) >= LEVELS.indexOf(this.o.printLevel);
    if (kind === 'note') {
      if (!shown) return;
    } else if (kind === 'hazard') {
      if (!shown) return;
      if (level === 'error') this.hazards.errors++; else this.hazards.warnings++;
    } else this.errors += times;
    // a record with no lines is only counted (initcheck keeps the first 10,000 reads)
    if (!shown || lines.length === 0 || (this.o.printLimit > 0 && this.printed >= this.o.printLimit)) return;
    this.printed++;
    for (const l of lines) this.line(l);
    this.line('');
  }

  /** The summary lines, and the exit code for a program that exited with `code`. */
  finish(code: number): number {
    if (code !== 0) this.line('Target application returned an error');
    if (this.o.tool === 'racecheck') {
      const n = this.hazards.errors + this.hazards.warnings;
      const s = (k: number, w: string): string => `${k} ${w}${k === 1 ? '' : 's'}`;
      this.line(`RACECHECK SUMMARY: ${s(n, 'hazard')} displayed (${s(this.hazards.errors, 'error')}, ${s(this.hazards.warnings, 'warning')})`);
    } else {
      if (this.o.leakCheck) this.line(`LEAK SUMMARY: ${this.leaks.bytes} bytes leaked in ${this.leaks.allocations} allocations`);
      this.line(`ERROR SUMMARY: ${this.errors} error${this.errors === 1 ? '' : 's'}`);
    }
    for (const fd of this.fds) closeSync(fd);
    const found = this.o.tool === 'racecheck' ? this.hazards.errors + this.hazards.warnings : this.errors;
    return code === 0 && found > 0 && this.o.errorExitcode !== 0 ? this.o.errorExitcode : code;
  }
}
