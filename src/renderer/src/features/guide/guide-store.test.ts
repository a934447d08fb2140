import { describe, expect, it } from 'vitest';
import type { SandpitClient, SandpitEvent } from '../../../../shared/api/client';
import { GUIDE_DISMISSED_KEY, GUIDE_DONE_KEY, createGuideStore, guideShown } from './guide-store';

function memory(): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    length: 0,
    clear: () => map.clear(),
    key: () => null,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

function client(rows: { transport: string; status: string }[], clients: { name: string }[] = []): SandpitClient {
  return {
    call: (name: string) =>
      Promise.resolve(name === 'connect.info' ? { clients } : name === 'audit.list' ? { rows } : undefined),
  } as unknown as SandpitClient;
}

const row = (transport: string, status = 'ok'): SandpitEvent =>
  ({ name: 'audit.appended', payload: { transport, status } }) as unknown as SandpitEvent;

describe('guide store', () => {
  it('shows until an assistant has connected and run code, then stays away', async () => {
    const storage = memory();
    const store = createGuideStore(client([{ transport: 'ipc', status: 'ok' }]), storage);
    expect(guideShown(store.getState())).toBe(false);
    await store.getState().load();
    expect(store.getState()).toMatchObject({ loaded: true, connected: false, ran: false });
    expect(guideShown(store.getState())).toBe(true);
    store.getState().applyEvent({ name: 'clients.changed', payload: { clients: [{ name: 'Claude', transport: 'mcp-http', connectedAt: '' }] } });
    expect(store.getState().connected).toBe(true);
    store.getState().applyEvent(row('http'));
    expect(store.getState().ran).toBe(false);
    // A first run still waiting for the person's approval (its row is open), or denied, has not run anything.
    store.getState().applyEvent(row('mcp-stdio', 'running'));
    store.getState().applyEvent(row('mcp-stdio', 'denied'));
    expect(store.getState()).toMatchObject({ ran: false, finishedHere: false });
    store.getState().applyEvent(row('mcp-stdio'));
    expect(guideShown(store.getState())).toBe(false);
    expect(storage.map.get(GUIDE_DONE_KEY)).toBe('1');
    // The next window remembers it, even when the log no longer has the row.
    const later = createGuideStore(client([]), storage);
    await later.getState().load();
    expect(guideShown(later.getState())).toBe(false);
  });

  it('counts a run an assistant made before the panel opened, and can be hidden and reopened', async () => {
    const storage = memory();
    const store = createGuideStore(client([{ transport: 'mcp-http', status: 'running' }, { transport: 'mcp-http', status: 'error' }]), storage);
    await store.getState().load();
    expect(store.getState().ran).toBe(true);
    const fresh = createGuideStore(client([]), memory());
    await fresh.getState().load();
    fresh.getState().dismiss();
    expect(guideShown(fresh.getState())).toBe(false);
    fresh.getState().reopen();
    expect(guideShown(fresh.getState())).toBe(true);
    expect(storage.map.has(GUIDE_DISMISSED_KEY)).toBe(false);
  });
});
