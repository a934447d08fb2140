import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SandpitBridge } from '../shared/api/transport';

const electron = vi.hoisted(() => {
  const exposed = new Map<string, unknown>();
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  return {
    exposed,
    listeners,
    contextBridge: { exposeInMainWorld: vi.fn((key: string, api: unknown) => exposed.set(key, api)) },
    ipcRenderer: {
      invoke: vi.fn((channel: string, input: unknown) => Promise.resolve({ ok: true, value: { channel, input } })),
      on: vi.fn((channel: string, listener: (...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)?.add(listener);
      }),
      removeListener: vi.fn((channel: string, listener: (...args: unknown[]) => void) =>
        listeners.get(channel)?.delete(listener),
      ),
    },
  };
});

vi.mock('electron', () => ({ contextBridge: electron.contextBridge, ipcRenderer: electron.ipcRenderer }));

async function loadBridge(): Promise<SandpitBridge> {
  vi.resetModules();
  electron.exposed.clear();
  await import('./index');
  return electron.exposed.get('sandpit') as SandpitBridge;
}

describe('preload', () => {
  beforeEach(() => {
    electron.ipcRenderer.invoke.mockClear();
    electron.listeners.clear();
  });

  it('exposes exactly invoke and subscribe as window.sandpit', async () => {
    const bridge = await loadBridge();
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledWith('sandpit', expect.anything());
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'subscribe']);
  });

  it('invokes allow-listed methods on their sandpit: channel', async () => {
    const bridge = await loadBridge();
    await expect(bridge.invoke('sessions.stop', { sessionId: 's1' })).resolves.toEqual({
      ok: true,
      value: { channel: 'sandpit:sessions.stop', input: { sessionId: 's1' } },
    });
  });

  it('answers an unknown method with a NOT_FOUND envelope and never reaches ipcRenderer', async () => {
    const bridge = await loadBridge();
    for (const method of ['event', 'sessions.nuke', '../engine.status', 'sandpit:engine.status']) {
      await expect(bridge.invoke(method, {})).resolves.toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
    expect(electron.ipcRenderer.invoke).not.toHaveBeenCalled();
  });

  it('forwards events as (name, payload) without the IPC event object, until unsubscribed', async () => {
    const bridge = await loadBridge();
    const seen: unknown[][] = [];
    const unsubscribe = bridge.subscribe((...args) => seen.push(args));
    const [forward] = [...(electron.listeners.get('sandpit:event') ?? [])];
    forward?.({ sender: 'secret' }, 'session.removed', { sessionId: 's1' });
    forward?.({ sender: 'secret' }, 42, {});
    expect(seen).toEqual([['session.removed', { sessionId: 's1' }]]);
    unsubscribe();
    expect(electron.listeners.get('sandpit:event')?.size).toBe(0);
  });
});
