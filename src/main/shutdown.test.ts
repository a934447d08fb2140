import { describe, expect, it } from 'vitest';
import type { Logger } from '../core/log';
import { stopThenDispose } from './shutdown';

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    lines,
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => lines.push(`warn ${message}`),
    error: (message: string) => lines.push(`error ${message}`),
    child: () => log,
  };
  return log;
}

const later = <T>(value: T, ms = 5): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('stopThenDispose', () => {
  it('awaits every stop, in order, before the core is disposed', async () => {
    const order: string[] = [];
    await stopThenDispose(
      [
        { what: 'IPC', stop: () => void order.push('ipc') },
        {
          what: 'the HTTP server',
          stop: async () => {
            order.push(await later('http closed', 20));
          },
        },
        {
          what: 'MCP sessions',
          stop: async () => {
            order.push(await later('mcp closed'));
          },
        },
      ],
      async () => void order.push('dispose'),
      recordingLog(),
    );
    expect(order).toEqual(['ipc', 'http closed', 'mcp closed', 'dispose']);
  });

  it('logs a stop that fails or hangs, goes on with the others and still disposes; never throws', async () => {
    const order: string[] = [];
    const log = recordingLog();
    await stopThenDispose(
      [
        { what: 'the HTTP server', stop: () => Promise.reject(new Error('EADDR')) },
        {
          what: 'the tray',
          stop: () => {
            throw new Error('no tray');
          },
        },
        { what: 'MCP sessions', stop: () => new Promise<void>(() => undefined) },
        { what: 'IPC', stop: () => void order.push('ipc') },
      ],
      async () => {
        order.push('dispose');
        throw new Error('dispose broke');
      },
      log,
      { stepMs: 50, disposeMs: 50 },
    );
    expect(order).toEqual(['ipc', 'dispose']);
    expect(log.lines).toEqual([
      'warn failed to stop the HTTP server',
      'warn failed to stop the tray',
      'warn failed to stop MCP sessions',
      'error failed to shut down cleanly',
    ]);
  });
});
