/**
 * Plain-text helpers for a fixed-size screen: every line a pane produces is cut or padded to its
 * exact width here, so Ink never wraps and the frame never grows past the terminal.
 */

/** Characters a terminal draws two columns wide (CJK, fullwidth forms, emoji) or not at all. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/gu;
const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060\ufeff]/gu;

/**
 * Make text safe for a fixed grid of one-column cells: expand tabs, blank control characters
 * (they would move the terminal's cursor), drop zero-width marks, and show double-width
 * characters as '?' (every width computation here counts one column per character).
 */
export function sanitize(s: string, tab = 4): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x20-\x7e]/.test(s)) return s;
  if (/[^\x00-\x7f]/.test(s)) s = s.replace(ZERO_WIDTH, '').replace(WIDE, '?');
  let out = '';
  let col = 0;
  for (const ch of s) {
    if (ch === '\t') {
      const n = tab - (col % tab);
      out += ' '.repeat(n);
      col += n;
    } else if (ch < ' ' || ch === '\x7f') {
      out += ' ';
      col++;
    } else {
      out += ch;
      col++;
    }
  }
  return out;
}

/** Cut to `w` characters (with a trailing ellipsis when something was cut) without padding. */
export function clip(s: string, w: number): string {
  if (w <= 0) return '';
  if (s.length <= w) return s;
  return w === 1 ? '…' : s.slice(0, w - 1) + '…';
}

/** Exactly `w` characters: cut or padded with spaces. */
export function fit(s: string, w: number): string {
  if (w <= 0) return '';
  return s.length >= w ? clip(s, w) : s + ' '.repeat(w - s.length);
}

/** Right-align in at least `w` characters (longer strings are left alone). */
export function padStart(s: string, w: number): string {
  return s.length >= w ? s : ' '.repeat(w - s.length) + s;
}

/** Split text into lines (without a trailing empty line for a final newline). */
export function lines(text: string): string[] {
  if (text === '') return [];
  const ls = text.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
}

export { baseName } from '#engine';

export function dim3(d: readonly number[]): string {
  return `(${d.join(',')})`;
}

/** Longest common prefix of some strings. */
export function commonPrefix(xs: readonly string[]): string {
  if (xs.length === 0) return '';
  let p = xs[0]!;
  for (const x of xs) while (!x.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/** First line of a possibly multi-line text. */
export function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return i < 0 ? s : s.slice(0, i);
}
