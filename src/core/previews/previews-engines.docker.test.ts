import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL = { transport: 'ipc', client: 'panel' } as const;

function get(url: string, cookie?: string): Promise<{ status: number; cookie: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: cookie ? { cookie } : {} }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, cookie: (res.headers['set-cookie']?.[0] ?? '').split(';')[0]!, body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** A process that keeps running past a run, previewed, on this core's engine and isolation. */
async function keepsServing(sp: TestSandpit): Promise<{ channel: string }> {
  const session = await call(sp.api, 'sessions.create', {}, PANEL);
  await call(
    sp.api,
    'sessions.runCommand',
    { sessionId: session.id, command: 'echo "<p>from the sandbox</p>" > index.html' },
    PANEL,
  );
  const app = await call(
    sp.api,
    'processes.start',
    { sessionId: session.id, command: 'exec python3 -m http.server 8000' },
    PANEL,
  );
  // A run ends, and stops what it left behind: the app goes on.
  expect((await call(sp.api, 'sessions.execute', { sessionId: session.id, code: 'print(1)' }, PANEL)).status).toBe(
    'ok',
  );
  const preview = await call(sp.api, 'previews.open', { sessionId: session.id, port: 8000, waitSeconds: 30 }, PANEL);
  const first = await get(preview.url);
  expect(first.status).toBe(302);
  const page = await get(`${preview.origin}/`, first.cookie);
  expect([page.status, page.body]).toEqual([200, '<p>from the sandbox</p>\n']);
  const again = await get(`${preview.origin}/index.html`, first.cookie);
  expect(again.status).toBe(200);
  await call(sp.api, 'processes.stop', { processId: app.id }, PANEL);
  return { channel: session.channel };
}

describe('processes and previews under gVisor (strong isolation: the attach channel, a connection per exec)', () => {
  let sp: TestSandpit | undefined;
  afterAll(async () => {
    await sp?.cleanup();
  });
  it('keeps an app running past a run and previews it', async () => {
    sp = await startTestSandpit({ defaultIsolation: 'strong' });
    expect(await keepsServing(sp)).toEqual({ channel: 'attach' });
  });
});

describe.each(testEngines().filter((e) => e.engine === 'podman'))(
  'processes and previews on $label',
  ({ engine, skip }) => {
    let sp: TestSandpit | undefined;
    afterAll(async () => {
      await sp?.cleanup();
    });
    it.skipIf(skip)('keeps an app running past a run and previews it', async () => {
      sp = await startTestSandpit(onEngine(engine));
      await keepsServing(sp);
    });
  },
);
