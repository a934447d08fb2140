import { describe, expect, it } from 'vitest';
import { EMPTY_BUFFER, appendEntry, endEntries } from './console-buffer';
import type { RunEnd } from './console-buffer';
import type { ConsoleCaps } from './console-buffer';

const caps: ConsoleCaps = { maxEntries: 4, maxChars: 20, maxDisplayChars: 10 };

describe('console buffer', () => {
  it('joins output of the same stream and run, keeps streams apart', () => {
    let b = appendEntry(EMPTY_BUFFER, { kind: 'code', executionId: 'r1', text: 'x', time: 't' });
    b = appendEntry(b, { kind: 'stdout', executionId: 'r1', text: 'a' });
    b = appendEntry(b, { kind: 'stdout', executionId: 'r1', text: 'b' });
    b = appendEntry(b, { kind: 'stderr', executionId: 'r1', text: 'e' });
    b = appendEntry(b, { kind: 'stdout', executionId: 'r2', text: 'c' });
    expect(b.entries.map((e) => [e.kind, 'text' in e ? e.text : ''])).toEqual([
      ['code', 'x'],
      ['stdout', 'ab'],
      ['stderr', 'e'],
      ['stdout', 'c'],
    ]);
    expect(b.chars).toBe(5);
    expect(b.trimmed).toBe(false);
  });

  it('drops the oldest entries past the caps and says so', () => {
    let b = EMPTY_BUFFER;
    for (let i = 0; i < 6; i++) b = appendEntry(b, { kind: 'note', executionId: `r${i}`, text: `n${i}` }, caps);
    expect(b.entries.map((e) => ('text' in e ? e.text : ''))).toEqual(['n2', 'n3', 'n4', 'n5']);
    expect(b.trimmed).toBe(true);
    b = appendEntry(b, { kind: 'stdout', executionId: 'big', text: 'x'.repeat(50) }, caps);
    expect(b.entries).toHaveLength(1);
    expect(b.chars).toBeLessThanOrEqual(caps.maxChars);
  });

  it('keeps the newest part of a long output when the run ends, instead of dropping all of it', () => {
    let b = appendEntry(EMPTY_BUFFER, { kind: 'stdout', executionId: 'big', text: `${'x'.repeat(30)}END` }, caps);
    b = appendEntry(b, { kind: 'done', executionId: 'big', status: 'ok', durationMs: 1 }, caps);
    const out = b.entries.find((e) => e.kind === 'stdout');
    expect(out && 'text' in out ? out.text : '').toMatch(/END$/);
    expect(b.entries.map((e) => e.kind)).toEqual(['stdout', 'done']);
    expect(b.chars).toBeLessThanOrEqual(caps.maxChars);
    expect(b.trimmed).toBe(true);
  });

  it('replaces a picture too large to hold with a note', () => {
    const b = appendEntry(
      EMPTY_BUFFER,
      { kind: 'display', executionId: 'r', display: { mime: 'image/png', data: 'A'.repeat(11), encoding: 'base64' } },
      caps,
    );
    expect(b.entries[0]).toMatchObject({ kind: 'note', text: expect.stringMatching(/Artifacts/) as unknown });
  });

  it('adds the value, the traceback and the notes of a run\'s end; a run stopped with its session gets no note', () => {
    const end = {
      sessionId: 's',
      executionId: 'r',
      status: 'error',
      durationMs: 3,
      result: '42',
      error: { name: 'ZeroDivisionError', value: 'division by zero', traceback: 'Traceback …\nZeroDivisionError' },
      truncated: true,
      message: 'The session restarted.',
    } satisfies RunEnd;
    expect(endEntries(end).map((e) => e.kind)).toEqual(['result', 'error', 'note', 'note']);
    expect(endEntries({ sessionId: 's', executionId: 'r', status: 'killed', durationMs: 5, message: 'The person stopped this session', stoppedBy: { by: 'person' } })).toEqual([]);
  });
});
