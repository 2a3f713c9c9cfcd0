/**
 * Environment for TUI tests, imported before anything loads Ink: under CI=true Ink writes only
 * the final frame, and chalk would drop colours on a non-TTY process stdout.
 */
delete process.env['CI'];
delete process.env['CONTINUOUS_INTEGRATION'];
process.env['FORCE_COLOR'] = '3';
export {};
