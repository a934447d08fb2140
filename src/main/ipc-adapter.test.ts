import { describe, expect, it, vi } from 'vitest';
import type { WebContents, WebFrameMain } from 'electron';
import { EventBus } from '../core/events/event-bus';
import type { Handlers } from '../core/api/api-types';
import { METHOD_NAMES } from '../shared/api/contract';

const electron = vi.hoisted(() => {
  const handlers = new Map<string, (event: unknown, input: unknown) => Promise<unknown>>();
  return {
    handlers,
    ipcMain: {
      handle: vi.fn((channel: string, handler: (event: unknown, input: unknown) => Promise<unknown>) => {
        if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
        handlers.set(channel, handler);
      }),
      removeHandler: vi.fn((channel: string) => handlers.delete(channel)),
    },
    BrowserWindow: { getAllWindows: vi.fn(() => []) },
  };
});

vi.mock('electron', () => ({ ipcMain: electron.ipcMain, BrowserWindow: electron.BrowserWindow }));

const { registerIpc } = await import('./ipc-adapter');

const trustedFrame = { url: 'file:///app/out/renderer/index.html' } as WebFrameMain;
const otherFrame = { url: 'https://evil.example/' } as WebFrameMain;
const isTrusted = (frame: WebFrameMain | null | undefined): boolean => frame === trustedFrame;

function fakeApi(): { api: Handlers; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const api = new Proxy({} as Handlers, {
    get: (_target, name) => (input: unknown, context: unknown) => {
      calls.push([name, input, context]);
      return Promise.resolve(
        name === 'engine.status' ? { state: 'up', endpoint: '/var/run/docker.sock' } : { sessions: [] },
      );
    },
  });
  return { api, calls };
}

function fakeContents(frame: WebFrameMain, destroyed = false): WebContents & { sent: unknown[][] } {
  const sent: unknown[][] = [];
  return {
    sent,
    mainFrame: frame,
    isDestroyed: () => destroyed,
    send: (...args: unknown[]) => sent.push(args),
  } as unknown as WebContents & { sent: unknown[][] };
}

describe('registerIpc', () => {
  it('registers one sandpit:<method> handler per contract method and removes them on dispose', () => {
    const dispose = registerIpc(fakeApi().api, new EventBus(), isTrusted);
    expect([...electron.handlers.keys()].sort()).toEqual(METHOD_NAMES.map((n) => `sandpit:${n}`).sort());
    dispose();
    expect(electron.handlers.size).toBe(0);
  });

  it('dispatches trusted calls with the panel IPC context and returns the envelope', async () => {
    const { api, calls } = fakeApi();
    const dispose = registerIpc(api, new EventBus(), isTrusted);
    const result = await electron.handlers.get('sandpit:engine.status')?.({ senderFrame: trustedFrame }, {});
    expect(result).toEqual({ ok: true, value: { state: 'up', endpoint: '/var/run/docker.sock' } });
    expect(calls).toEqual([['engine.status', {}, { transport: 'ipc', client: 'panel' }]]);
    dispose();
  });

  it('returns INVALID_INPUT envelopes from the dispatcher instead of throwing', async () => {
    const { api, calls } = fakeApi();
    const dispose = registerIpc(api, new EventBus(), isTrusted);
    const result = await electron.handlers.get('sandpit:sessions.stop')?.(
      { senderFrame: trustedFrame },
      { sessionId: 7 },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(calls).toEqual([]);
    dispose();
  });

  it('denies calls from any other frame, or from a frame that is gone', async () => {
    const { api, calls } = fakeApi();
    const dispose = registerIpc(api, new EventBus(), isTrusted);
    for (const senderFrame of [otherFrame, null]) {
      const result = await electron.handlers.get('sandpit:sessions.list')?.({ senderFrame }, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'DENIED' } });
    }
    expect(calls).toEqual([]);
    dispose();
  });

  it('sends bus events to trusted, live panels only, and stops on dispose', () => {
    const bus = new EventBus();
    const panel = fakeContents(trustedFrame);
    const stranger = fakeContents(otherFrame);
    const closed = fakeContents(trustedFrame, true);
    const dispose = registerIpc(fakeApi().api, bus, isTrusted, () => [panel, stranger, closed]);
    bus.emit('session.removed', { sessionId: 's1' });
    expect(panel.sent).toEqual([['sandpit:event', 'session.removed', { sessionId: 's1' }]]);
    expect(stranger.sent).toEqual([]);
    expect(closed.sent).toEqual([]);
    dispose();
    bus.emit('session.removed', { sessionId: 's2' });
    expect(panel.sent).toHaveLength(1);
  });
});
