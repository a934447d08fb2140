import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL = { transport: 'ipc', client: 'panel' } as const;

describe('previews: the gaps of issue 17 (quit, a paused session, wait_seconds, refused ports)', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit();
  });
  afterAll(async () => {
    await sp?.cleanup();
  });

  it('a paused session resumes for a preview; wait_seconds waits for a port that listens a moment later', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    expect(await sp.sessions.session(sessionId).pause('idle')).toBe(true);
    // The preview resumes the paused session to read its ports (nothing listens yet: the plain error).
    await expect(call(sp.api, 'previews.open', { sessionId, port: 8010 }, PANEL)).rejects.toThrow(
      'nothing listens on port 8010 in this session; start your app first',
    );
    expect(sp.sessions.session(sessionId).state).not.toBe('paused');
    await call(sp.api, 'processes.start', { sessionId, command: 'sleep 2 && exec python3 -m http.server 8010' }, PANEL);
    const p = await call(sp.api, 'previews.open', { sessionId, port: 8010, waitSeconds: 20 }, PANEL);
    expect(p.port).toBe(8010);
  });

  it('a quit completes a running process as stopped and ends its preview', async () => {
    const other = await startTestSandpit();
    const sessionId = (await call(other.api, 'sessions.create', {}, PANEL)).id;
    const proc = await call(other.api, 'processes.start', { sessionId, command: 'exec python3 -m http.server 8011' }, PANEL);
    const p = await call(other.api, 'previews.open', { sessionId, port: 8011, waitSeconds: 20 }, PANEL);
    await other.dispose();
    // The same home opened again: the audit chain on disk is what an auditor reads after the quit.
    const again = await startTestSandpit({ home: other.config.home });
    const audit = again.audit;
    const row = audit.list({ limit: 100 }).rows.find((r) => r.method === 'processes.start' && r.sessionId === sessionId)!;
    const entry = audit.get(row.id)!;
    expect(entry.status).toBe('killed');
    expect(JSON.stringify(entry)).toContain('Stopped: Sandpit quit.');
    await expect(fetch(p.url)).rejects.toThrow();
    expect(proc.id).toBeTruthy();
    await again.cleanup();
  });

  it('refuses an out-of-range port with plain words; the agent and the forwarder listen on no TCP port to preview', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, PANEL)).id;
    // The agent's own sockets are Unix sockets in its folder, never TCP: a fresh sandbox lists no port at all,
    // so no port can reach the agent or the preview forwarder.
    await call(sp.api, 'sessions.runCommand', { sessionId, command: 'true' }, PANEL);
    expect((await call(sp.api, 'previews.ports', { sessionId }, PANEL)).ports).toEqual([]);
    for (const port of [0, 70_000]) {
      await expect(call(sp.api, 'previews.open', { sessionId, port }, PANEL)).rejects.toThrow(
        'port: a port is a whole number from 1 to 65535',
      );
    }
  });
});
