import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../shared/domain/snapshot';
import { call } from '../api/dispatcher';
import { rawRequest } from '../../test-support/http-client';
import type { RawResponse } from '../../test-support/http-client';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';
import { startHttpServer } from './http-server';
import type { RunningHttpServer } from './http-server';
import { generateToken } from '../connect/token';

const TOKEN = generateToken();

let sandpit: TestSandpit;
let http: RunningHttpServer;

beforeAll(async () => {
  sandpit = await startTestSandpit();
  http = await startHttpServer({ sandpit, port: 0, token: TOKEN, panelToken: generateToken() });
});

afterAll(async () => {
  await http?.close();
  await sandpit?.cleanup();
});

function post(body: unknown, token = TOKEN): Promise<RawResponse> {
  return rawRequest({
    port: http.port,
    method: 'POST',
    path: '/snapshot',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    timeoutMs: 60_000,
  });
}

describe('REST POST /snapshot', () => {
  it('snapshots a session by id (one made in the panel is open to the token) and answers with the snapshot', async () => {
    const session = await newSession(sandpit, {});
    await call(sandpit.api, 'files.write', { sessionId: session.id, path: 'report.txt', content: 'done' }, { transport: 'internal' });
    const res = await post({ session_id: session.id, name: 'from rest' });
    expect(res.status, res.text).toBe(200);
    const snapshot = res.json as Snapshot;
    expect(snapshot).toMatchObject({ name: 'from rest', sessionId: session.id, files: 1, fileBytes: 4, shared: false });
    expect(snapshot.id).toMatch(/^snap-[0-9a-f]{16}$/);
    await sandpit.sessions.stop(session.id);
  });

  it("without a session id, snapshots the token's default session", async () => {
    const res = await post({});
    expect(res.status, res.text).toBe(200);
    expect((res.json as Snapshot).files).toBe(0);
    for (const s of sandpit.sessions.list()) await sandpit.sessions.stop(s.id);
  });

  it('refuses an unknown field, a missing session and a request without the token', async () => {
    expect((await post({ session: 'x' })).status).toBe(400);
    const missing = await post({ session_id: 'ses-nope' });
    expect(missing.status).toBe(404);
    expect((await post({}, '')).status).toBe(401);
  });
});
