import { describe, expect, it } from 'vitest';
import { visibleRange } from '../components/visible-range';
import { commandLine, withToken } from '../features/connect/connect-text';
import { codeExcerpt, formatAge, formatBytes, formatDuration, stripAnsi, tookWords } from './format';

describe('formatters', () => {
  it('says sizes, durations and ages in plain words', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(23_456)).toBe('23 KB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(formatDuration(120)).toBe('120 ms');
    expect(formatDuration(4_200)).toBe('4.2 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(30 * 60_000)).toBe('30 min');
    expect(tookWords(undefined)).toBe('…');
    expect(tookWords(4)).toBe('under 1 s');
    expect(tookWords(4_200)).toBe('4.2 s');
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatAge('2026-01-01T11:59:55Z', now)).toBe('just now');
    expect(formatAge('2026-01-01T11:55:00Z', now)).toBe('5 min ago');
    expect(formatAge('2025-12-31T12:00:00Z', now)).toBe('1 day ago');
    expect(codeExcerpt('\nimport os\nprint(1)\n', 40)).toBe('import os … (+1 lines)');
  });

  it('renders only the rows in view of a virtual list', () => {
    expect(visibleRange(0, 400, 40, 1_000, 2)).toEqual({ start: 0, end: 13 });
    expect(visibleRange(4_000, 400, 40, 1_000, 2)).toEqual({ start: 98, end: 113 });
    expect(visibleRange(999_999, 400, 40, 10, 2)).toEqual({ start: 7, end: 10 });
    expect(visibleRange(0, 400, 40, 0, 2)).toEqual({ start: 0, end: 0 });
  });

  it('fills the token into configs and quotes the stdio command', () => {
    expect(withToken('Bearer <SANDPIT_TOKEN> and <SANDPIT_TOKEN>', 'abc')).toBe('Bearer abc and abc');
    expect(withToken('Bearer <SANDPIT_TOKEN>', undefined)).toBe('Bearer <SANDPIT_TOKEN>');
    expect(
      commandLine({ command: '/usr/bin/node', args: ['/a b/sandpit.mjs', 'mcp'], env: { SANDPIT_HOME: "/it's" } }),
    ).toBe(`SANDPIT_HOME='/it'\\''s' /usr/bin/node '/a b/sandpit.mjs' mcp`);
  });
});

describe('stripAnsi', () => {
  it('leaves plain text and removes colour codes', () => {
    expect(stripAnsi('\u001b[91mERROR: x\u001b[0m done')).toBe('ERROR: x done');
  });
});
