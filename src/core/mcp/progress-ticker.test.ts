import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../log';
import type { ToolExtra } from './tool-extra';
import { startProgress } from './progress-ticker';
import { setProgressNote, setWaiting } from './request-waiting';

function fakeExtra(withToken = true): { extra: ToolExtra; sent: Array<{ progress: number; message?: string }> } {
  const sent: Array<{ progress: number; message?: string }> = [];
  const extra = {
    _meta: withToken ? { progressToken: 't-1' } : {},
    signal: new AbortController().signal,
    sendNotification: vi.fn((n: { params: { progress: number; message?: string } }) => {
      sent.push(n.params);
      return Promise.resolve();
    }),
  } as unknown as ToolExtra;
  return { extra, sent };
}

describe('progress of a tool call', () => {
  it('tells a new note (an environment build) at once, then on every tick, with a growing count', async () => {
    vi.useFakeTimers();
    try {
      const { extra, sent } = fakeExtra();
      const ticker = startProgress(extra, () => 'own message', silentLogger, 1_000);
      setProgressNote(extra, 'building the environment "Team data"');
      expect(sent).toEqual([{ progressToken: 't-1', progress: 1, message: 'building the environment "Team data"' }]);
      setProgressNote(extra, 'building the environment "Team data"'); // the same note again: nothing new to tell
      expect(sent).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(sent[1]).toMatchObject({ progress: 2, message: 'building the environment "Team data"' });
      setWaiting(extra, 'waiting for approval in the Sandpit panel');
      expect(sent[2]).toMatchObject({ progress: 3, message: 'waiting for approval in the Sandpit panel' });
      ticker.stop();
      setProgressNote(extra, 'after the call');
      await vi.advanceTimersByTimeAsync(3_000);
      expect(sent).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends nothing when the request asked for no progress', () => {
    const { extra, sent } = fakeExtra(false);
    const ticker = startProgress(extra, () => 'own message', silentLogger, 1_000);
    setProgressNote(extra, 'building');
    ticker.stop();
    expect(sent).toEqual([]);
  });
});
