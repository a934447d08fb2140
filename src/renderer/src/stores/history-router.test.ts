import { describe, expect, it } from 'vitest';
import type { SandpitClient } from '../../../shared/api/client';
import { bindRouter } from './history-router';
import type { RouterHost } from './history-router';
import { createPanelStore } from './panel-store';

const client = {} as SandpitClient;

/** A browser's address bar and history, enough for the router. */
function fakeHost(hash = ''): RouterHost & { entries: string[]; index: number; back: () => void; type: (hash: string) => void } {
  const listeners: Record<string, (() => void)[]> = { popstate: [], hashchange: [] };
  const host = {
    entries: [hash],
    index: 0,
    location: { hash },
    document: { title: '' },
    history: {
      state: null,
      pushState: (_s: unknown, _t: string, url?: string | URL | null) => {
        host.entries = [...host.entries.slice(0, host.index + 1), String(url)];
        host.index = host.entries.length - 1;
        host.location.hash = String(url);
      },
      replaceState: (_s: unknown, _t: string, url?: string | URL | null) => {
        host.entries[host.index] = String(url);
        host.location.hash = String(url).replace(/^[^#]*/, '');
      },
    },
    addEventListener: (type: 'popstate' | 'hashchange', l: () => void) => listeners[type]!.push(l),
    removeEventListener: (type: 'popstate' | 'hashchange', l: () => void) => {
      listeners[type] = listeners[type]!.filter((x) => x !== l);
    },
    back: () => {
      host.index -= 1;
      host.location.hash = host.entries[host.index]!;
      for (const l of listeners.popstate!) l();
    },
    type: (next: string) => {
      host.location.hash = next;
      for (const l of listeners.hashchange!) l();
    },
  };
  return host;
}

describe('bindRouter', () => {
  it('starts on the address, makes a history entry per move, and Back goes back', () => {
    const store = createPanelStore(client);
    const host = fakeHost('#/activity');
    const stop = bindRouter(store, host);
    expect(store.getState().screen).toBe('activity');
    expect(host.document?.title).toBe('Activity — Sandpit');
    store.getState().navigate('sessions', 'ses-1');
    store.getState().navigate('settings');
    expect(host.entries).toEqual(['#/activity', '#/sessions/ses-1', '#/settings']);
    expect(host.document?.title).toBe('Settings — Sandpit');
    host.back();
    expect(store.getState()).toMatchObject({ screen: 'sessions', openSessionId: 'ses-1' });
    expect(host.document?.title).toBe('Session — Sessions — Sandpit');
    host.back();
    expect(store.getState().screen).toBe('activity');
    expect(host.entries).toHaveLength(3);
    stop();
  });

  it('writes the home route when the address has none, and hands a pasted link to onToken', () => {
    const store = createPanelStore(client);
    const host = fakeHost('');
    const tokens: string[] = [];
    bindRouter(store, host, { onToken: (t) => tokens.push(t) });
    expect(host.location.hash).toBe('#/sessions');
    host.type('#token=new-one');
    expect(tokens).toEqual(['new-one']);
    expect(host.location.hash).toBe('#/sessions');
    host.type('#/connect');
    expect(store.getState().screen).toBe('connect');
  });

  it('keeps a screen with unsaved changes until the person decides, also on Back', () => {
    const store = createPanelStore(client);
    const host = fakeHost('#/activity');
    bindRouter(store, host);
    store.getState().navigate('settings');
    store.getState().setBlocked(true);
    store.getState().navigate('sessions');
    expect(store.getState()).toMatchObject({ screen: 'settings', pendingRoute: { screen: 'sessions' } });
    store.getState().cancelLeave();
    host.back();
    expect(store.getState()).toMatchObject({ screen: 'settings', pendingRoute: { screen: 'activity' } });
    expect(host.location.hash).toBe('#/settings');
    store.getState().confirmLeave();
    expect(store.getState()).toMatchObject({ screen: 'activity', blocked: false });
    expect(host.location.hash).toBe('#/activity');
  });
});

describe('leave guard with the settings store', () => {
  it('still goes where the person wanted once the changes are discarded (the guard lifts first)', () => {
    const store = createPanelStore(client);
    store.getState().navigate('settings');
    store.getState().setBlocked(true);
    store.getState().navigate('activity');
    // Discarding the changes lifts the block before the guard's "leave" runs.
    store.getState().setBlocked(false);
    store.getState().confirmLeave();
    expect(store.getState().screen).toBe('activity');
  });
});
