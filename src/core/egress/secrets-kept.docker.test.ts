import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SessionInfo } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import { silentLogger } from '../log';
import { newId } from '../util/ids';
import { testDocker } from '../../test-support/docker';
import { startHttpsUpstream } from '../../test-support/https-upstream';
import { TEST_LABEL, helperSpec } from '../../test-support/test-server-container';
import { LABEL } from '../docker/labels';
import type { HttpsUpstream } from '../../test-support/https-upstream';

const PANEL: CallContext = { transport: 'internal' };
const VALUE = `sk-kept-${newId('v', 12)}-must-never-reach-the-sandbox`;
const BEARER_SHA = createHash('sha256').update(`Bearer ${VALUE}`).digest('hex');

/** A real core on a data folder kept between cores (a restart: dispose one, start the next on the same folder). */
async function startCore(home: string, upstream: HttpsUpstream): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: true, installNetwork: 'none', graceMs: 2_000, images: { ...images } }), {
    logger: silentLogger,
    secretUpstreamCa: [upstream.ca],
  });
}

/** The last line a run printed, as JSON. */
function lastJson(stdout: string): [string, boolean, string] {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as [string, boolean, string];
}

/** Code that calls the test API with the stand-in, and says what the API got (its fingerprint) and which CA the sandbox trusts. */
function callTheApi(ip: string): string {
  return [
    'import hashlib, json, os, urllib.request',
    `req = urllib.request.Request('https://${ip}/v1', headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})`,
    'got = json.loads(urllib.request.urlopen(req, timeout=20).read())',
    "ca = open(os.environ['SSL_CERT_FILE']).read().strip().split('-----BEGIN CERTIFICATE-----')[-1]",
    `print(json.dumps([os.environ['OPENAI_API_KEY'], got['sha256'] == '${BEARER_SHA}', hashlib.sha256(ca.encode()).hexdigest()[:16]]))`,
  ].join('\n');
}

async function egressNetworks(): Promise<string[]> {
  return (await testDocker().listNetworks({ 'dev.sandpit.managed': 'true' })).map((n) => n.name).filter((name) => name.startsWith('sandpit-egress-'));
}

describe('a kept session with secrets across a real restart of the core', () => {
  let upstream: HttpsUpstream | undefined;
  let home = '';
  let first: Sandpit | undefined;
  let second: Sandpit | undefined;
  let kept: SessionInfo;
  let firstCa = '';
  let firstNetwork = '';

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    upstream = await startHttpsUpstream(testDocker(), image);
    home = await mkdtemp(join(tmpdir(), 'sandpit-secrets-kept-'));
  }, 120_000);
  let foreignId: string | undefined;
  afterAll(async () => {
    await first?.dispose();
    await second?.dispose();
    if (foreignId) await testDocker().removeContainer(foreignId).catch(() => undefined);
    await upstream?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('is kept: the secret is put in for its host while the first core runs', async () => {
    first = await startCore(home, upstream!);
    const env = await call(first.api, 'environments.create', { name: 'Kept with a key', language: 'python', network: 'packages' }, PANEL);
    await call(first.api, 'secrets.save', { name: 'openai', value: VALUE, hosts: [upstream!.ip], environments: [env.id] }, PANEL);
    kept = await call(first.api, 'sessions.create', { environment: env.id, keep: true, name: 'kept with a key' }, PANEL);
    expect(kept).toMatchObject({ kept: true, secrets: [{ name: 'openai', hosts: [upstream!.ip], envVar: 'OPENAI_API_KEY' }] });
    const before = await call(first.api, 'sessions.execute', { sessionId: kept.id, code: `open('/workspace/notes.txt', 'w').write('before the restart')\n${callTheApi(upstream!.ip)}` }, PANEL);
    expect(before.error).toBeUndefined();
    const [placeholder, gotIt, ca] = lastJson(before.stdout);
    expect([placeholder, gotIt]).toEqual(['sandpit-secret-openai', true]);
    firstCa = ca;
    firstNetwork = first.sessions.session(kept.id).runtime.options.spec.network ?? '';
    expect(firstNetwork).toMatch(/^sandpit-egress-/);
    await first.dispose();
    first = undefined;
    // The old core's proxy network went with it: the kept container's network is gone.
    expect(await egressNetworks()).not.toContain(firstNetwork);
  }, 240_000);

  it('comes back after the restart with its files, the stand-in, the new core\'s CA bundle mounted, and the secret put in again', async () => {
    second = await startCore(home, upstream!);
    const listed = (await call(second.api, 'sessions.list', {}, PANEL)).sessions;
    expect(listed.map((s) => [s.id, s.state, s.kept])).toEqual([[kept.id, 'paused', true]]);
    // Its description names its secrets again (what an assistant sees), never the value.
    expect(listed[0]?.secrets).toEqual([{ name: 'openai', hosts: [upstream!.ip], envVar: 'OPENAI_API_KEY' }]);
    // Its record names the new container and this core's proxy network (no pass, no value).
    const record = await readFile(join(home, 'kept-sessions', `${kept.id}.json`), 'utf8');
    const { network, sandbox } = JSON.parse(record) as { network: string; sandbox: { containerId: string } };
    expect(network).toMatch(/^sandpit-egress-/);
    expect(network).not.toBe(firstNetwork);
    expect(sandbox.containerId).not.toBe(kept.containerId);
    expect(record).not.toContain(VALUE);

    const after = await call(second.api, 'sessions.execute', { sessionId: kept.id, code: `print(open('/workspace/notes.txt').read())\n${callTheApi(upstream!.ip)}` }, PANEL);
    expect(after.error).toBeUndefined();
    expect(after.stdout.split('\n')[0]).toBe('before the restart');
    expect(after.stateLost).toBe(true);
    const [placeholder, gotIt, ca] = lastJson(after.stdout);
    expect(placeholder).toBe('sandpit-secret-openai');
    // The sandbox trusts the new core's CA (a new instance is a new CA), and its request carried the secret.
    expect(ca).not.toBe(firstCa);
    expect(gotIt).toBe(true);
    const recent = await call(second.api, 'egress.recent', { sessionId: kept.id }, PANEL);
    expect(recent.entries.map((e) => e.secretWords).filter(Boolean)).toContain(`used secret openai for ${upstream!.ip}`);
    // The CA folder is mounted read-only and holds no private key.
    const r = await call(second.api, 'sessions.runCommand', { sessionId: kept.id, command: 'touch /etc/sandpit-ca/x 2>&1; grep -c "PRIVATE KEY" /etc/sandpit-ca/ca-bundle.pem; env | grep -c sk-kept' }, PANEL);
    expect(r.stdout).toMatch(/Read-only file system/);
    expect(r.stdout.trim().split('\n').slice(-2)).toEqual(['0', '0']);
  }, 240_000);

  it('a record edited to name a container that is not Sandpit\'s is not taken over and that container is left alone; one naming a container that is gone gets a new one', async () => {
    await second!.dispose();
    second = undefined;
    const file = join(home, 'kept-sessions', `${kept.id}.json`);
    const record = JSON.parse(await readFile(file, 'utf8')) as { sandbox: { containerId: string } };
    const ours = record.sandbox.containerId;
    // A container of someone else's (no Sandpit labels), named by the record.
    const docker = testDocker();
    foreignId = await docker.createContainer(helperSpec(`sandpit-test-foreign-${newId('f', 5).slice(2)}`, inject('images').python!, 'none', ['true']));
    await writeFile(file, JSON.stringify({ ...record, sandbox: { ...record.sandbox, containerId: foreignId } }));
    const third = await startCore(home, upstream!);
    try {
      expect((await call(third.api, 'sessions.list', {}, PANEL)).sessions).toEqual([]);
    } finally {
      await third.dispose();
    }
    expect((await docker.inspectContainer(foreignId)).status).toBe('created');
    expect((await docker.listContainers({ [TEST_LABEL]: 'true' })).some((c) => c.id === foreignId)).toBe(true);

    // A container that is gone (a crash between removing the old one and writing the record again): the session
    // comes back in a new container, and the one Sandpit had made for it is removed, not left beside it.
    await writeFile(file, JSON.stringify({ ...record, sandbox: { ...record.sandbox, containerId: 'f'.repeat(64) } }));
    const fourth = await startCore(home, upstream!);
    try {
      expect((await call(fourth.api, 'sessions.list', {}, PANEL)).sessions.map((s) => [s.id, s.state])).toEqual([[kept.id, 'paused']]);
      const run = await call(fourth.api, 'sessions.execute', { sessionId: kept.id, code: `print(open('/workspace/notes.txt').read())\n${callTheApi(upstream!.ip)}` }, PANEL);
      expect(run.stdout.split('\n')[0]).toBe('before the restart');
      expect(lastJson(run.stdout).slice(0, 2)).toEqual(['sandpit-secret-openai', true]);
      const containers = (await docker.listContainers({ [LABEL.session]: kept.id })).filter((c) => c.labels[LABEL.role] === undefined).map((c) => c.id);
      expect(containers).toHaveLength(1);
      expect(containers).not.toContain(ours);
    } finally {
      await fourth.dispose();
    }
  }, 300_000);
});
