import { afterEach, describe, expect, it } from 'vitest';
import type { Handlers } from '../api/api-types';
import { EventBus } from '../events/event-bus';
import { defaultConfig } from '../config';
import type { EngineMonitor } from '../sessions/engine-monitor';
import { silentLogger } from '../log';
import { startHttpServer } from './http-server';
import type { RunningHttpServer } from './http-server';
import { generateToken } from './token';

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
