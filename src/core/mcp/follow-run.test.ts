import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events/event-bus';
import { silentLogger } from '../log';
import type { ToolExtra } from './tool-extra';
import { followRun, newestLine } from './follow-run';

function fakeExtra(progressToken?: string): { extra: ToolExtra; sent: ServerNotification[]; abort: () => void } {
  const controller = new AbortController();
  const sent: ServerNotification[] = [];
  const extra = {
    signal: controller.signal,
    requestId: 1,
    ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    sendNotification: (n: ServerNotification) => {
      sent.push(n);
      return Promise.resolve();
    },
    sendRequest: () => Promise.reject(new Error('not used')),
  } as unknown as ToolExtra;
  return { extra, sent, abort: () => controller.abort() };
}

describe('newestLine', () => {
  it('is the last non-empty line, trimmed and shortened', () => {
    expect(newestLine('a\nb\n\n')).toBe('b');
    expect(newestLine('one\r\ntwo  ')).toBe('two');
    expect(newestLine('\n \n')).toBeUndefined();
    expect(newestLine('x'.repeat(500))).toHaveLength(200);
  });
});

describe('followRun', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends increasing progress with the newest output line of its own run only', () => {
    const bus = new EventBus();
    const { extra, sent } = fakeExtra('tok');
    const follower = followRun({
      bus,
      executionId: 'run-aaaaaaaa',
      extra,
      interrupt: () => Promise.resolve(),
      log: silentLogger,
    });
    vi.advanceTimersByTime(1_000);
    bus.emit('execution.started', { sessionId: 'ses-1', executionId: 'run-aaaaaaaa', code: '', startedAt: '' });
    bus.emit('execution.output', {
      sessionId: 'ses-1',
      executionId: 'run-aaaaaaaa',
      stream: 'stdout',
      text: 'first\nsecond\n',
    });
    bus.emit('execution.output', {
      sessionId: 'ses-1',
      executionId: 'run-bbbbbbbb',
      stream: 'stdout',
      text: 'not mine\n',
    });
    vi.advanceTimersByTime(2_000);
    follower.stop();
    vi.advanceTimersByTime(5_000);
    expect(sent.map((n) => n.params)).toEqual([
      { progressToken: 'tok', progress: 1, message: 'waiting for the session' },
      { progressToken: 'tok', progress: 2, message: 'second' },
      { progressToken: 'tok', progress: 3, message: 'second' },
    ]);
  });

  it('sends nothing without a progress token', () => {
    const { extra, sent } = fakeExtra();
    const follower = followRun({
      bus: new EventBus(),
      executionId: 'run-aaaaaaaa',
      extra,
      interrupt: () => Promise.resolve(),
      log: silentLogger,
    });
    vi.advanceTimersByTime(5_000);
    follower.stop();
    expect(sent).toEqual([]);
  });

  it('interrupts on cancel, also when the run was still queued (as soon as it starts), and not after it is done', () => {
    const bus = new EventBus();
    const interrupt = vi.fn(() => Promise.resolve());
    const queued = fakeExtra();
    const a = followRun({ bus, executionId: 'run-aaaaaaaa', extra: queued.extra, interrupt, log: silentLogger });
    queued.abort();
    expect(interrupt).not.toHaveBeenCalled();
    bus.emit('execution.started', { sessionId: 'ses-1', executionId: 'run-aaaaaaaa', code: '', startedAt: '' });
    expect(interrupt).toHaveBeenCalledWith('ses-1');
    a.stop();

    interrupt.mockClear();
    const finished = fakeExtra();
    const b = followRun({ bus, executionId: 'run-bbbbbbbb', extra: finished.extra, interrupt, log: silentLogger });
    bus.emit('execution.started', { sessionId: 'ses-1', executionId: 'run-bbbbbbbb', code: '', startedAt: '' });
    bus.emit('execution.done', { sessionId: 'ses-1', executionId: 'run-bbbbbbbb', status: 'ok', durationMs: 1 });
    finished.abort();
    expect(interrupt).not.toHaveBeenCalled();
    b.stop();
  });
});
