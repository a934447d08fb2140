import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { pollUntil } from '../util/with-timeout';
import { settingsPath } from './settings-file';

const PANEL: CallContext = { transport: 'ipc' };

describe('settings on a real engine', () => {
  let sp: TestSandpit;

  beforeAll(async () => {
    sp = await startTestSandpit({ poolSize: 0 });
  });
  afterAll(async () => {
    await sp?.cleanup();
  });

  it('applies pool size and default limits at once, saves them, and announces the change', async () => {
    const updates: Array<EventPayload<'settings.updated'>> = [];
    const off = sp.bus.on('settings.updated', (s) => updates.push(s));
    expect(sp.sessions.poolStatus()).toEqual([]);

    const view = await call(sp.api, 'settings.update', { patch: { poolSize: 1, defaultLimits: { memoryMb: 384 } } }, PANEL);
    expect(view).toMatchObject({ poolSize: 1, dataFolder: sp.config.home, restartNeeded: [] });
    expect(updates.at(-1)).toMatchObject({ poolSize: 1 });
    expect(JSON.parse(await readFile(settingsPath(sp.config.home), 'utf8'))).toEqual({ poolSize: 1, defaultLimits: { memoryMb: 384 } });

    const pythonPool = (): { ready: number } | undefined => sp.sessions.poolStatus().find((p) => p.key.startsWith('["python"'));
    await pollUntil(() => ((pythonPool()?.ready ?? 0) >= 1 ? true : undefined), 60_000, 'a warm python sandbox');
    const session = await call(sp.api, 'sessions.create', {}, PANEL);
    expect(session.fromPool).toBe(true);
    expect(session.limits.memoryMb).toBe(384);
    const inside = await call(sp.api, 'sessions.execute', { sessionId: session.id, code: 'open("/sys/fs/cgroup/memory/memory.limit_in_bytes").read().strip() if __import__("os").path.exists("/sys/fs/cgroup/memory/memory.limit_in_bytes") else open("/sys/fs/cgroup/memory.max").read().strip()' }, PANEL);
    expect(inside.result).toBe(`'${384 * 1024 * 1024}'`);

    await call(sp.api, 'settings.update', { patch: { poolSize: 0 } }, PANEL);
    await pollUntil(() => (sp.sessions.poolStatus().every((p) => p.ready === 0) ? true : undefined), 30_000, 'the pool to empty');
    off();
  });

  it('refuses an invalid change naming the field, and lists settings that wait for a restart', async () => {
    const refused = await call(sp.api, 'settings.update', { patch: { egress: { pipIndexUrl: 'not a url' } } }, PANEL).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INVALID_INPUT' });
    expect((refused as Error).message).toMatch(/^patch\.egress\.pipIndexUrl: /);
    await expect(call(sp.api, 'settings.update', { patch: { poolSize: 1 } }, { transport: 'mcp-http', client: 'x', principal: 'mcp:1' })).rejects.toMatchObject({ code: 'DENIED' });
    const view = await call(sp.api, 'settings.update', { patch: { port: 7999, egress: { pipIndexUrl: 'http://mirror.invalid/simple' } } }, PANEL);
    expect(view.restartNeeded).toEqual(['port']);
    expect(sp.config.pipIndexUrl).toBe('http://mirror.invalid/simple');
    expect((await call(sp.api, 'settings.get', {}, PANEL)).egress.pipIndexUrl).toBe('http://mirror.invalid/simple');
  });
});
