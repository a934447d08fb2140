import { afterEach, describe, expect, it } from 'vitest';
import type { Handlers } from '../api/api-types';
import { EventBus } from '../events/event-bus';
import { defaultConfig } from '../config';
import type { EngineMonitor } from '../sessions/engine-monitor';
import { silentLogger } from '../log';
import { startHttpServer } from './http-server';
import type { RunningHttpServer } from './http-server';
import { generateToken } from '../connect/token';

let running: RunningHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('RunningHttpServer.setToken', () => {
  it('accepts only the new token from the next request on, and refuses a weak one', async () => {
    const first = generateToken();
    const api = { 'sessions.list': async () => ({ sessions: [] }), 'environments.list': async () => ({ environments: [] }) } as Partial<Handlers> as Handlers;
    running = await startHttpServer({
      sandpit: { api, bus: new EventBus(), engine: { current: { state: 'up', endpoint: 'x' } } as EngineMonitor, config: defaultConfig(), log: silentLogger },
      port: 0,
      token: first,
      panelDir: false,
    });
    const list = (token: string): Promise<number> =>
      fetch(`${running!.url}/list-envs`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await list(first)).toBe(200);
    const second = generateToken();
    running.setToken(second);
    expect(await list(first)).toBe(401);
    expect(await list(second)).toBe(200);
    expect(() => running!.setToken('short')).toThrow(/256 bits/);
    expect(await list(second)).toBe(200);
  });
});

describe('RunningHttpServer.setPanelToken', () => {
  it('ends the event streams opened with the old panel link, and refuses it from then on', async () => {
    const clients = generateToken();
    const first = generateToken();
    const api = { 'engine.status': async () => ({ state: 'up', endpoint: 'x' }) } as Partial<Handlers> as Handlers;
    running = await startHttpServer({
      sandpit: { api, bus: new EventBus(), engine: { current: { state: 'up', endpoint: 'x' } } as EngineMonitor, config: defaultConfig(), log: silentLogger },
      port: 0,
      token: clients,
      panelToken: first,
      panelDir: false,
    });
    const stream = await fetch(`${running.url}/api/events`, { headers: { authorization: `Bearer ${first}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // ": connected"
    const ended = (async (): Promise<string> => {
      try {
        for (;;) if ((await reader.read()).done) return 'ended';
      } catch {
        return 'ended';
      }
    })();
    const second = generateToken();
    running.setPanelToken(second);
    expect(await ended).toBe('ended');
    const again = await fetch(`${running.url}/api/events`, { headers: { authorization: `Bearer ${first}` } });
    expect(again.status).toBe(401);
    await again.body?.cancel();
    const call = (token: string): Promise<number> =>
      fetch(`${running!.url}/api/engine.status`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status);
    expect(await call(second)).toBe(200);
  });
});
