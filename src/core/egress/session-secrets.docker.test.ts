import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionInfo } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { startHttpsUpstream } from '../../test-support/https-upstream';
import type { HttpsUpstream } from '../../test-support/https-upstream';
import { connectInProcess } from '../../test-support/in-process-mcp';

/**
 * Issue 18, a secret ticked for one session (not its environment) in the panel: only that session's requests to the
 * secret's host get the value; another session of the same environment reaches the host only if its environment
 * allows it, and then with the stand-in alone. Assistants cannot attach one. The API is a test HTTPS server on a
 * Docker network the helper creates, with its own CA that only this test's core trusts upstream.
 */
const PANEL: CallContext = { transport: 'internal' };
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'assistant', principal: 'assistant-session-secrets' };
const VALUE = `wk-session-${newId('v', 12)}-must-never-reach-the-sandbox`;
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const WITH_VALUE = sha(`Bearer ${VALUE}`);
const WITH_STAND_IN = sha('Bearer sandpit-secret-weather');
const ON_SESSION = { name: 'weather', envVar: 'WEATHER_API_KEY', forSession: true };

/** Every line the core logs: the value must be in none of them. */
function keepingLogger(lines: string[]): Logger {
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>): void => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error'), child: () => logger };
  return logger;
}

/** A real core on `home` (a restart: dispose one, start the next on the same folder). */
async function startCore(home: string, upstream: HttpsUpstream, lines: string[]): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: true, installNetwork: 'none', graceMs: 2_000, images: { ...images } }), {
    logger: keepingLogger(lines),
    secretUpstreamCa: [upstream.ca],
  });
}

/**
 * curl from inside the session with the variable's stand-in (or the literal stand-in when the session has no variable).
 * `tunnel`: the request goes through the plain tunnel, where the sandbox meets the API's own test certificate, which
 * it has no reason to trust (-k); through the intercept it trusts Sandpit's CA bundle and verifies.
 */
async function curlWeather(core: Sandpit, sessionId: string, ip: string, tunnel = false): Promise<{ exitCode: number; sha256?: string; stderr: string }> {
  const command = `curl -sS ${tunnel ? '-k ' : ''}--max-time 20 -H "Authorization: Bearer \${WEATHER_API_KEY:-sandpit-secret-weather}" "https://${ip}/forecast"`;
  const r = await call(core.api, 'sessions.runCommand', { sessionId, command }, PANEL);
  return { exitCode: r.exitCode, stderr: r.stderr, ...(r.exitCode === 0 ? { sha256: (JSON.parse(r.stdout) as { sha256: string }).sha256 } : {}) };
}

describe('a secret ticked for one session in the panel', () => {
  let upstream: HttpsUpstream | undefined;
  let home = '';
  let core: Sandpit | undefined;
  const lines: string[] = [];
  let ticked: SessionInfo;
  let envId = '';

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    upstream = await startHttpsUpstream(testDocker(), image);
    home = await mkdtemp(join(tmpdir(), 'sandpit-session-secrets-'));
    core = await startCore(home, upstream, lines);
  }, 180_000);
  afterAll(async () => {
    await core?.dispose();
    await upstream?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("is put into that session's requests to its host; another session of the same environment gets only the stand-in, and reaches the host only when its environment allows it", async () => {
    const c = core!;
    const ip = upstream!.ip;
    const env = await call(c.api, 'environments.create', { name: 'Weather work', language: 'python', network: 'packages' }, PANEL);
    envId = env.id;
    await call(c.api, 'secrets.save', { name: 'weather', value: VALUE, hosts: [ip] }, PANEL);
    // The environment has no secret: the one ticked for the session is its own.
    expect((await call(c.api, 'environments.get', { environmentId: env.id }, PANEL)).secrets).toBeUndefined();

    ticked = await call(c.api, 'sessions.create', { environment: env.id, secrets: ['weather'], keep: true, name: 'ticked' }, PANEL);
    expect(ticked.secrets).toEqual([{ ...ON_SESSION, hosts: [ip] }]);
    const plain = await call(c.api, 'sessions.create', { environment: env.id, name: 'plain' }, PANEL);
    expect(plain.secrets).toBeUndefined();

    // curl in the ticked session: the stand-in in its variable, the value in the request the API got.
    const inside = await call(c.api, 'sessions.runCommand', { sessionId: ticked.id, command: 'echo "$WEATHER_API_KEY $SSL_CERT_FILE"' }, PANEL);
    expect(inside.stdout).toBe('sandpit-secret-weather /etc/sandpit-ca/ca-bundle.pem\n');
    expect(await curlWeather(c, ticked.id, ip)).toEqual({ exitCode: 0, stderr: '', sha256: WITH_VALUE });

    // The plain session: no variable, and the host is not one of its allowed hosts — the proxy refuses it.
    expect((await call(c.api, 'sessions.runCommand', { sessionId: plain.id, command: 'echo "[${WEATHER_API_KEY:-}]"' }, PANEL)).stdout).toBe('[]\n');
    const refused = await curlWeather(c, plain.id, ip, true);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('403');
    const plainLog = await call(c.api, 'egress.recent', { sessionId: plain.id }, PANEL);
    expect(plainLog.entries.some((e) => e.host === ip && !e.allowed)).toBe(true);
    // Its environment now allows the host: the plain session reaches it through the tunnel, with the stand-in only.
    await call(c.api, 'environments.update', { environmentId: env.id, patch: { allowedHosts: [ip] } }, PANEL);
    expect(await curlWeather(c, plain.id, ip, true)).toEqual({ exitCode: 0, stderr: '', sha256: WITH_STAND_IN });
    // ...while the ticked one still gets the value.
    expect(await curlWeather(c, ticked.id, ip)).toEqual({ exitCode: 0, stderr: '', sha256: WITH_VALUE });

    // The Network tab's words, for the ticked session only.
    const recent = await call(c.api, 'egress.recent', { sessionId: ticked.id }, PANEL);
    expect(recent.entries.map((e) => e.secretWords).filter(Boolean)).toContain(`used secret weather for ${ip}`);
    expect((await call(c.api, 'egress.recent', { sessionId: plain.id }, PANEL)).entries.some((e) => e.secretWords)).toBe(false);
    // Each run's audit row names the secrets its session could use: the ticked one's, none for the other.
    for (const [id, want] of [[ticked.id, ['weather']], [plain.id, undefined]] as const) {
      const { rows } = await call(c.api, 'audit.list', { filters: { sessionId: id }, limit: 50 }, PANEL);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect((await call(c.api, 'audit.get', { id: row.id }, PANEL)).sandbox?.secrets, `row ${row.id}`).toEqual(want);
    }
  }, 240_000);

  it('an assistant sees it by name and host, is asked about with its name, and cannot attach one (over MCP or any other way); unknown names and the wrong network start nothing', async () => {
    const c = core!;
    const ip = upstream!.ip;
    const before = (await call(c.api, 'sessions.list', {}, PANEL)).sessions.map((s) => s.id).sort();
    const mcp = await connectInProcess({ ...c, cleanup: async () => undefined }, 'session-secrets-assistant');
    try {
      const listed = (await mcp.client.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
      expect((listed.content[0] as { text: string }).text).toContain(`, can use the secret weather for ${ip} (WEATHER_API_KEY holds a stand-in; Sandpit puts the value in)`);
      const refused = (await mcp.client.callTool({ name: 'create_session', arguments: { environment: envId, secrets: ['weather'] } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([{ type: 'text', text: 'DENIED: Only the Sandpit panel may attach secrets to a session.' }]);
      expect(JSON.stringify(listed)).not.toContain(VALUE);
    } finally {
      await mcp.close();
    }
    await expect(call(c.api, 'sessions.create', { environment: envId, secrets: ['weather'] }, ASSISTANT)).rejects.toThrow('Only the Sandpit panel may attach secrets to a session.');
    // The panel, with a name no secret has, or an environment whose network cannot carry one: plain words.
    await expect(call(c.api, 'sessions.create', { environment: envId, secrets: ['weather', 'nope'] }, PANEL)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'There is no secret "nope": add it in Settings → Secrets first.' });
    const offline = await call(c.api, 'environments.create', { name: 'Offline work', language: 'python', network: 'none' }, PANEL);
    await expect(call(c.api, 'sessions.create', { environment: offline.id, secrets: ['weather'] }, PANEL)).rejects.toThrow(`The environment "Offline work" has no network, so its sessions reach no host: a secret cannot be used there.`);
    expect((await call(c.api, 'sessions.list', {}, PANEL)).sessions.map((s) => s.id).sort()).toEqual(before);

    // The approval prompt of the ticked session names its secret.
    await call(c.api, 'settings.update', { patch: { approvals: { askSecretSessions: true } } }, PANEL);
    try {
      const asked = new Promise<{ id: string; detail: string }>((resolve) => {
        const stop = c.bus.on('approval.requested', (a) => {
          stop();
          resolve(a);
        });
      });
      const run = call(c.api, 'sessions.execute', { sessionId: ticked.id, code: 'print(1)' }, ASSISTANT).then(
        () => 'ran',
        (error: unknown) => (error as { code?: string }).code,
      );
      const approval = await asked;
      expect(approval.detail).toContain('its requests can use the secret weather (Sandpit adds it for its hosts)');
      await call(c.api, 'approvals.respond', { id: approval.id, decision: 'deny' }, PANEL);
      expect(await run).toBe('DENIED');
    } finally {
      await call(c.api, 'settings.update', { patch: { approvals: { askSecretSessions: false } } }, PANEL);
    }
  }, 120_000);

  it('a kept session comes back after a restart with its own secret (its record names it, never the value), and it is put in again', async () => {
    await core!.dispose();
    core = undefined;
    const record = await readFile(join(home, 'kept-sessions', `${ticked.id}.json`), 'utf8');
    expect((JSON.parse(record) as { secrets?: string[] }).secrets).toEqual(['weather']);
    expect(record).not.toContain(VALUE);
    core = await startCore(home, upstream!, lines);
    const back = (await call(core.api, 'sessions.list', {}, PANEL)).sessions.find((s) => s.id === ticked.id);
    expect(back).toMatchObject({ state: 'paused', kept: true, secrets: [{ ...ON_SESSION, hosts: [upstream!.ip] }] });
    expect(await curlWeather(core, ticked.id, upstream!.ip)).toEqual({ exitCode: 0, stderr: '', sha256: WITH_VALUE });
    // The store holds it sealed: no file of the data folder holds the value in clear.
    await expectNoFileHolds(home, VALUE);
  }, 240_000);

  it('deleting the secret takes it from the session at once: its requests carry only the stand-in, its description and record no longer name it; no file of the data folder ever held the value', async () => {
    const c = core!;
    await call(c.api, 'secrets.delete', { name: 'weather' }, PANEL);
    expect((await call(c.api, 'sessions.get', { sessionId: ticked.id }, PANEL)).secrets).toBeUndefined();
    // Its environment allows the host (the first test): the request goes through the tunnel, the stand-in untouched.
    expect(await curlWeather(c, ticked.id, upstream!.ip, true)).toEqual({ exitCode: 0, stderr: '', sha256: WITH_STAND_IN });
    const recordFile = join(home, 'kept-sessions', `${ticked.id}.json`);
    await pollUntil(async () => ((JSON.parse(await readFile(recordFile, 'utf8')) as { secrets?: string[] }).secrets === undefined ? true : undefined), 5_000, 'the kept record written again without the secret');

    // Byte for byte: no file of the data folder holds the value, nor any log line.
    await expectNoFileHolds(home, VALUE);
    expect(lines.join('\n')).not.toContain(VALUE);
  }, 120_000);
});

/** Searches every file of the data folder, byte for byte (its secrets file among them). */
async function expectNoFileHolds(home: string, value: string): Promise<void> {
  const files = await allFiles(home);
  expect(files.some((f) => f.endsWith('secrets.json'))).toBe(true);
  for (const file of files) expect((await readIfThere(file)).includes(Buffer.from(value)), file).toBe(false);
}

/** A file's bytes, or none when it went between listing and reading. */
async function readIfThere(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
}

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await allFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
