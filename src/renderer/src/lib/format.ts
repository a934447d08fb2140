import { LANGUAGES, languageLabel } from '../../../shared/domain/languages';
import type { Language } from '../../../shared/domain/languages';

/** Sizes as people read them: 0 bytes, 12 KB, 3.4 MB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** A duration as people read it: 120 ms, 4.2 s, 3 min 5 s, 2 h 10 min. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) {
    const seconds = Math.round((ms % 60_000) / 1_000);
    return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
  }
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** How long ago, in words: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  const seconds = Math.max(0, Math.round((now - then) / 1_000));
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** A date and time in the reader's locale, or — when it is not a date. */
export function formatTime(iso: string): string {
  const then = new Date(iso);
  return Number.isNaN(then.getTime()) ? '—' : then.toLocaleString();
}

/** Each language's name for a person, from the language registry. */
export const LANGUAGE_WORDS: Record<Language, string> = Object.fromEntries(LANGUAGES.map((language) => [language, languageLabel(language)])) as Record<Language, string>;

/** The first line of some code, shortened to `max` characters. */
export function codeExcerpt(code: string, max = 80): string {
  const lines = code.split('\n').filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '').trim();
  const more = lines.length > 1 ? ` … (+${lines.length - 1} lines)` : '';
  return (first.length > max ? `${first.slice(0, max - 1)}…` : first) + more;
}

/** "1 run", "3 runs". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Removes terminal colour and cursor codes (ESC [ … letter) so logs read as plain text. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g, '');
}

/** How long a run took, for lists: "…" while it runs, "under 1 s" for quick ones (milliseconds say nothing to a person). */
export function tookWords(ms: number | undefined): string {
  if (ms === undefined) return '…';
  return ms < 1_000 ? 'under 1 s' : formatDuration(ms);
}
