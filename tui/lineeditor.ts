/**
 * The one-line editor behind `:` (and the Memory pane's address prompt): insertion at a cursor,
 * readline's common control keys, history on up/down, completion of command names on Tab.
 * Tab with no word before the cursor, and Shift-Tab, leave the line for the next / previous
 * pane, so the keyboard is never trapped in it (a shell's Tab completes only what was begun).
 */
import type { KeyPress } from './keys.js';
import { commonPrefix } from './text.js';

export type EditResult =
  | { readonly kind: 'edit' }
  | { readonly kind: 'submit'; readonly text: string }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'candidates'; readonly names: readonly string[] }
  /** Leave the line (what was typed is dropped, as Esc drops it) and move focus to the next (1) / previous (-1) pane. */
  | { readonly kind: 'leave'; readonly direction: 1 | -1 };

const HISTORY_MAX = 500;

export class LineEditor {
  text = '';
  cursor = 0;
  private readonly history: string[] = [];
  private histPos = -1;
  private draft = '';

  /** Start editing an empty line. */
  reset(): void {
    this.text = '';
    this.cursor = 0;
    this.histPos = -1;
  }

  /** Remember a submitted line (no immediate duplicates). */
  remember(line: string): void {
    if (this.history[this.history.length - 1] !== line) this.history.push(line);
    if (this.history.length > HISTORY_MAX) this.history.shift();
  }

  /** Apply a key; `names` are the completion candidates for Tab (none: Tab does nothing). */
  key(k: KeyPress, names: readonly string[] = []): EditResult {
    const s = this.text;
    const c = this.cursor;
    const edit: EditResult = { kind: 'edit' };
    if (k.ctrl) {
      switch (k.ch) {
        case 'a': this.cursor = 0; break;
        case 'e': this.cursor = s.length; break;
        case 'u': this.text = s.slice(c); this.cursor = 0; break;
        case 'k': this.text = s.slice(0, c); break;
        case 'w': {
          const before = s.slice(0, c).replace(/\S+\s*$/, '');
          this.text = before + s.slice(c);
          this.cursor = before.length;
          break;
        }
        case 'c': return { kind: 'cancel' };
        default: break;
      }
      return edit;
    }
    switch (k.name) {
      case undefined: {
        const ch = k.ch ?? '';
        this.text = s.slice(0, c) + ch + s.slice(c);
        this.cursor = c + ch.length;
        return edit;
      }
      case 'escape': return { kind: 'cancel' };
      case 'enter': return { kind: 'submit', text: s.trim() };
      case 'backspace':
        if (s === '') return { kind: 'cancel' };
        if (c > 0) { this.text = s.slice(0, c - 1) + s.slice(c); this.cursor = c - 1; }
        return edit;
      case 'delete': this.text = s.slice(0, c) + s.slice(c + 1); return edit;
      case 'left': this.cursor = Math.max(0, c - 1); return edit;
      case 'right': this.cursor = Math.min(s.length, c + 1); return edit;
      case 'home': this.cursor = 0; return edit;
      case 'end': this.cursor = s.length; return edit;
      case 'up': this.recall(1); return edit;
      case 'down': this.recall(-1); return edit;
      case 'tab': return this.text.slice(0, c).trim() === '' ? { kind: 'leave', direction: 1 } : this.complete(names);
      case 'backTab': return { kind: 'leave', direction: -1 };
      default: return edit;
    }
  }

  private recall(d: number): void {
    if (this.history.length === 0) return;
    if (this.histPos === -1) this.draft = this.text;
    const pos = Math.max(-1, Math.min(this.history.length - 1, this.histPos + d));
    this.histPos = pos;
    this.text = pos === -1 ? this.draft : this.history[this.history.length - 1 - pos]!;
    this.cursor = this.text.length;
  }

  /** Complete the text before the cursor to the candidates' common prefix (a space when unique). */
  private complete(all: readonly string[]): EditResult {
    const head = this.text.slice(0, this.cursor);
    const word = head.trimStart();
    if (word === '' || all.length === 0) return { kind: 'edit' };
    const names = [...new Set(all)].filter((n) => n.startsWith(word));
    if (names.length === 0) return { kind: 'candidates', names };
    const lead = head.length - word.length;
    const common = names.length === 1 ? names[0]! + ' ' : commonPrefix(names);
    this.text = head.slice(0, lead) + common + this.text.slice(this.cursor);
    this.cursor = lead + common.length;
    return names.length > 1 ? { kind: 'candidates', names } : { kind: 'edit' };
  }
}
