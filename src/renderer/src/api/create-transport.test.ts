import { describe, expect, it, vi } from 'vitest';
import type { SandpitBridge } from '../../../shared/api/transport';
import { createPanelTransport, takeToken } from './create-transport';
import type { PanelHost } from './create-transport';

function host(hash: string, stored?: string): PanelHost & { replaced: string[]; storage: Map<string, string> } {
  const storage = new Map<string, string>(stored ? [['sandpit.token', stored]] : []);
  const replaced: string[] = [];
  return {
    replaced,
    storage,
    location: { hash, pathname: '/panel/', search: '?x=1' },
    history: {
      state: null,
      replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => void replaced.push(String(url)),
    },
    sessionStorage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v), removeItem: (k) => void storage.delete(k) },
  };
}

describe('takeToken', () => {
  it('reads #token=…, removes it from the address bar, and keeps it for reloads in this tab', () => {
    const h = host('#token=abc123');
    expect(takeToken(h)).toBe('abc123');
    expect(h.replaced).toEqual(['/panel/?x=1']);
    expect(h.storage.get('sandpit.token')).toBe('abc123');
  });

  it('keeps the route part of the fragment and drops a stale "accepted" mark', () => {
    const h = host('#/activity&token=fresh');
    h.storage.set('sandpit.token.accepted', '1');
    expect(takeToken(h)).toBe('fresh');
    expect(h.replaced).toEqual(['/panel/?x=1#/activity']);
    expect(h.storage.has('sandpit.token.accepted')).toBe(false);
  });

  it('falls back to the stored token, or none', () => {
    expect(takeToken(host('', 'kept'))).toBe('kept');
    expect(takeToken(host('#other=1'))).toBeUndefined();
    expect(host('').replaced).toEqual([]);
  });
});

describe('createPanelTransport', () => {
  it('uses IPC when the preload bridge exists', async () => {
    const invoke = vi.fn(() => Promise.resolve({ ok: true, value: 1 }));
    const bridge: SandpitBridge = { invoke, subscribe: () => () => undefined };
    const transport = createPanelTransport({ ...host('#token=ignored'), sandpit: bridge });
    expect(transport.kind).toBe('ipc');
    await expect(transport.invoke('engine.status', {})).resolves.toEqual({ ok: true, value: 1 });
    expect(invoke).toHaveBeenCalledWith('engine.status', {});
  });

  it('uses HTTP in a browser', () => {
    expect(createPanelTransport(host('#token=t')).kind).toBe('http');
  });
});

describe('IPC transport', () => {
  it('turns a failed invoke (main not answering) into a typed error', async () => {
    const bridge: SandpitBridge = {
      invoke: () => Promise.reject(new Error('No handler registered')),
      subscribe: () => () => undefined,
    };
    const transport = createPanelTransport({ ...host(''), sandpit: bridge });
    await expect(transport.invoke('engine.status', {})).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/did not answer/) as unknown,
    });
  });
});

describe('HTTP transport token', () => {
  it('sends the panel token from the link, and keeps it for reloads', async () => {
    const h = host('#token=panel-secret');
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = vi.fn((_url: RequestInfo | URL, init?: RequestInit) => {
      seen.push(String((init?.headers as Record<string, string>).authorization));
      return Promise.resolve(
        new Response(JSON.stringify({ ok: true, value: {} }), { headers: { 'content-type': 'application/json' } }),
      );
    });
    try {
      const transport = createPanelTransport(h);
      await transport.invoke('engine.status', {});
      expect(seen).toEqual(['Bearer panel-secret']);
      expect(h.storage.get('sandpit.token')).toBe('panel-secret');
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
