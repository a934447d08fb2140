import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { connectInProcess } from '../../test-support/in-process-mcp';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { TEST_LABEL, helperSpec } from '../../test-support/test-server-container';
import { createSecretAuthority } from './secret-ca';

const PANEL: CallContext = { transport: 'internal' };
const VALUE = `sk-docker-${newId('v', 12)}-must-never-reach-the-sandbox`;
const UPSTREAM_PORT = 8443;
// The sandbox compares what the upstream got with this fingerprint: the value itself is in no code that runs,
// so no history, snapshot, notebook or export can hold it because of the test.
const BEARER_SHA = createHash('sha256').update(`Bearer ${VALUE}`).digest('hex');
const PY_IS_BEARER = (expr: string): string => `__import__('hashlib').sha256(${expr}.encode()).hexdigest() == '${BEARER_SHA}'`;
// A private package index (the tests' PEP 503 index over HTTPS) that demands a token as basic auth ("token:<value>"):
// it is told only the fingerprint of the Authorization header it must get.
const INDEX_VALUE = `pypi-token-${newId('t', 12)}-must-never-reach-the-sandbox`;
const INDEX_PORT = 8443;
const INDEX_AUTH_SHA = createHash('sha256').update(`Basic ${Buffer.from(`token:${INDEX_VALUE}`).toString('base64')}`).digest('hex');
const PIP = 'pip install --no-input --disable-pip-version-check --no-cache-dir --target /tmp/pkgs --index-url https://pypi.secret.test/simple sandpit_demo_b';

/** Every line the core logs, at every level: the value must be in none of them. */
function keepingLogger(lines: string[]): Logger {
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>): void => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error'), child: () => logger };
  return logger;
}

// An HTTPS server in a container on a network this test creates (its own test CA); it answers every request
// with the Authorization header it got. The egress proxy reaches it through the test's connector only.
const SERVER = [
  'import hashlib, http.server, json, os, ssl',
  "open('/tmp/cert.pem', 'w').write(os.environ['CERT_PEM']); open('/tmp/key.pem', 'w').write(os.environ['KEY_PEM'])",
  'class H(http.server.BaseHTTPRequestHandler):',
  '    def do_GET(self):',
  "        a = self.headers.get('Authorization')",
  // `?fp`: the answer carries only the header's fingerprint, so the sandbox never gets the value echoed back.
  "        body = json.dumps({'host': self.headers.get('Host'), 'authorization': None if '?fp' in self.path else a, 'sha256': hashlib.sha256((a or '').encode()).hexdigest()}).encode()",
  "        self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)",
  '    def log_message(self, *args): pass',
  `s = http.server.ThreadingHTTPServer(('0.0.0.0', ${UPSTREAM_PORT}), H)`,
  'c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain("/tmp/cert.pem", "/tmp/key.pem")',
  's.socket = c.wrap_socket(s.socket, server_side=True)',
  's.serve_forever()',
].join('\n');

describe('secrets: a sandbox uses a credential it never holds', () => {
  const upstreamCa = createSecretAuthority('Test upstream CA');
  let sp: TestSandpit | undefined;
  let ip = '';
  let networkId: string | undefined;
  let containerId: string | undefined;
  let indexId: string | undefined;
  let indexIp = '';
  const logLines: string[] = [];
  const used: Array<EventPayload<'egress.allowed'>> = [];
  const api = (): TestSandpit => sp!;
  const sessionOf = (id: string): ReturnType<TestSandpit['sessions']['session']> => api().sessions.session(id);

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    const docker = testDocker();
    const suffix = newId('x', 5).slice(2);
    const network = `sandpit-test-secrets-${suffix}`;
    networkId = await docker.createNetwork({ name: network, labels: { [TEST_LABEL]: 'true' }, internal: true });
    // The certificate of api.secret.test (other.test is reached with an unverified context: its TLS is not ours).
    const leaf = upstreamCa.leafFor('api.secret.test');
    const spec = helperSpec(`sandpit-test-https-${suffix}`, image, network, ['python3', '-c', SERVER]);
    spec.env = { ...spec.env, CERT_PEM: leaf.cert, KEY_PEM: leaf.key };
    containerId = await docker.createContainer(spec);
    await docker.startContainer(containerId);
    ip = (await docker.inspectContainer(containerId)).ipAddress ?? '';
    // The private index, on the same network, with a certificate of the test CA for pypi.secret.test.
    const indexLeaf = upstreamCa.leafFor('pypi.secret.test');
    const indexSource = await readFile(fileURLToPath(new URL('../../test-support/package-index-server.py', import.meta.url)), 'utf8');
    const indexSpec = helperSpec(`sandpit-test-private-index-${suffix}`, image, network, ['python3', '-c', indexSource]);
    indexSpec.env = { ...indexSpec.env, INDEX_TLS_CERT: indexLeaf.cert, INDEX_TLS_KEY: indexLeaf.key, INDEX_PORT: String(INDEX_PORT), INDEX_AUTH_SHA256: INDEX_AUTH_SHA };
    indexId = await docker.createContainer(indexSpec);
    await docker.startContainer(indexId);
    indexIp = (await docker.inspectContainer(indexId)).ipAddress ?? '';
    for (const [where, port, name] of [[ip, UPSTREAM_PORT, 'api.secret.test'], [indexIp, INDEX_PORT, 'pypi.secret.test']] as const) {
      await pollUntil(
        () =>
          new Promise<true | undefined>((resolve) => {
            const s = tlsConnect({ host: where, port, servername: name, ca: upstreamCa.certificate }, () => {
              s.destroy();
              resolve(true);
            });
            s.on('error', () => resolve(undefined));
          }),
        30_000,
        `the test HTTPS server ${name}`,
      );
    }
    sp = await startTestSandpit(
      // The private index is Sandpit's pip index too (install_packages reaches it through the proxy).
      { egressProxy: true, installNetwork: 'none', pipIndexUrl: 'https://pypi.secret.test/simple' },
      {
        logger: keepingLogger(logLines),
        secretUpstreamCa: [upstreamCa.certificate],
        egressConnect: (host: string, port: number): Socket => {
          if (host === 'pypi.secret.test' && port === 443) return connect({ host: indexIp, port: INDEX_PORT });
          if (!['api.secret.test', 'other.test'].includes(host) || port !== 443) throw new Error(`unexpected upstream ${host}:${port}`);
          return connect({ host: ip, port: UPSTREAM_PORT });
        },
      },
    );
    api().bus.on('egress.allowed', (e) => void (e.secrets?.length ? used.push(e) : undefined));
    await pollUntil(() => (api().environments.egress() ? true : undefined), 30_000, 'egress gateway up');
  }, 120_000);
  afterAll(async () => {
    await sp?.cleanup();
    if (containerId) await testDocker().removeContainer(containerId).catch(() => undefined);
    if (indexId) await testDocker().removeContainer(indexId).catch(() => undefined);
    if (networkId) await testDocker().removeNetwork(networkId).catch(() => undefined);
  });

  it('puts the value in for its host only; the sandbox sees the placeholder; the data folder never holds the value in clear', async () => {
    const env = await call(api().api, 'environments.create', { name: 'With a key', language: 'python', network: 'packages', allowedHosts: ['other.test'] }, PANEL);
    await call(api().api, 'secrets.save', { name: 'openai', value: VALUE, hosts: ['api.secret.test'], environments: [env.id] }, PANEL);
    const listed = await call(api().api, 'environments.get', { environmentId: env.id }, PANEL);
    expect(listed.secrets).toEqual([{ name: 'openai', hosts: ['api.secret.test'], envVar: 'OPENAI_API_KEY' }]);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const session = api().sessions.session(s.id);
    // Its description names the secrets and hosts (what an assistant sees), never the value.
    expect(s.secrets).toEqual([{ name: 'openai', hosts: ['api.secret.test'], envVar: 'OPENAI_API_KEY' }]);

    const env1 = await session.execute("import os\n(os.environ['OPENAI_API_KEY'], os.environ['SSL_CERT_FILE'], os.path.exists(os.environ['SSL_CERT_FILE']))");
    expect(env1.result).toBe("('sandpit-secret-openai', '/etc/sandpit-ca/ca-bundle.pem', True)");

    // Python urllib, the placeholder in the header: the upstream gets the value.
    const withHeader = await session.execute(
      [
        'import json, os, urllib.request',
        "req = urllib.request.Request('https://api.secret.test/v1', headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})",
        'got = json.loads(urllib.request.urlopen(req, timeout=15).read())',
        `(${PY_IS_BEARER("got['authorization']")}, 'sandpit-secret' in got['authorization'])`,
      ].join('\n'),
    );
    expect(withHeader.result).toBe('(True, False)');
    // No header at all: the secret's header is added.
    const added = await session.execute(`import json, urllib.request\n${PY_IS_BEARER("json.loads(urllib.request.urlopen('https://api.secret.test/v2', timeout=15).read())['authorization']")}`);
    expect(added.result).toBe('True');
    // Python requests: the placeholder in the header, and no header at all. The upstream answers with the fingerprint only.
    const viaRequests = await session.execute(
      [
        'import os, requests',
        "r = requests.get('https://api.secret.test/req?fp', headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']}, timeout=15)",
        "bare = requests.get('https://api.secret.test/req-bare?fp', timeout=15).json()",
        `(r.status_code, r.json()['sha256'] == '${BEARER_SHA}', bare['sha256'] == '${BEARER_SHA}', r.json()['authorization'])`,
      ].join('\n'),
    );
    expect(viaRequests.error).toBeUndefined();
    expect(viaRequests.result).toBe('(200, True, True, None)');
    // curl through run_command: the placeholder from the environment, and no header at all.
    const curl = await call(api().api, 'sessions.runCommand', { sessionId: s.id, command: 'curl -sS -H "Authorization: Bearer $OPENAI_API_KEY" "https://api.secret.test/curl?fp"; echo; curl -sS "https://api.secret.test/curl-bare?fp"' }, PANEL);
    expect(curl.stderr).toBe('');
    const answers = curl.stdout.trim().split('\n').map((line) => JSON.parse(line) as { sha256: string; authorization: string | null });
    expect(answers).toEqual([
      { host: 'api.secret.test', authorization: null, sha256: BEARER_SHA },
      { host: 'api.secret.test', authorization: null, sha256: BEARER_SHA },
    ]);

    // Another allowed host: a plain tunnel (its own certificate), and the placeholder stays a placeholder.
    const other = await session.execute(
      [
        'import json, os, ssl, urllib.request',
        'ctx = ssl._create_unverified_context()',
        "req = urllib.request.Request('https://other.test/', headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})",
        "json.loads(urllib.request.urlopen(req, timeout=15, context=ctx).read())['authorization']",
      ].join('\n'),
    );
    expect(other.result).toBe("'Bearer sandpit-secret-openai'");

    // Nowhere in the sandbox: its environment, every process's environ, its files.
    const inside = await call(api().api, 'sessions.runCommand', { sessionId: s.id, command: 'env; cat /proc/*/environ 2>/dev/null; grep -rs -- "sk-docker" /workspace /tmp /etc/sandpit-ca | head -1; echo done' }, PANEL);
    expect(inside.stdout).toContain('OPENAI_API_KEY=sandpit-secret-openai');
    expect(inside.stdout).not.toContain(VALUE);

    await pollUntil(() => (used.length >= 6 ? true : undefined), 5_000, 'used-secret events');
    expect(used[0]).toMatchObject({ host: 'api.secret.test', sessionId: s.id, secrets: ['openai'] });
    const recent = await call(api().api, 'egress.recent', { sessionId: s.id }, PANEL);
    expect(recent.entries.map((e) => e.secretWords).filter(Boolean)).toContain('used secret openai for api.secret.test');
    expect(JSON.stringify(recent)).not.toContain(VALUE);

    // The audit row of every run names the secrets its session could use (names only).
    const { rows } = await call(api().api, 'audit.list', { filters: { sessionId: s.id }, limit: 50 }, PANEL);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const full = await call(api().api, 'audit.get', { id: row.id }, PANEL);
      expect(full.sandbox?.secrets, `row ${row.id}`).toEqual(['openai']);
    }
    // A snapshot, a notebook export, a replay and an audit export: none carries the value, and the data
    // folder still holds no file with it afterwards (searched below).
    const snap = await call(api().api, 'snapshots.create', { sessionId: s.id }, PANEL);
    // A session restored from it is connected as its environment's sessions are: the secret's stand-in, the CA, the value put in.
    const restored = await call(api().api, 'snapshots.restore', { snapshot: snap.id }, PANEL);
    expect(restored.session.secrets).toEqual([{ name: 'openai', hosts: ['api.secret.test'], envVar: 'OPENAI_API_KEY' }]);
    const fromSnapshot = await api().sessions.session(restored.session.id).execute(`import json, os, urllib.request\n(os.environ['OPENAI_API_KEY'], json.loads(urllib.request.urlopen('https://api.secret.test/restored?fp', timeout=15).read())['sha256'] == '${BEARER_SHA}')`);
    expect(fromSnapshot.error).toBeUndefined();
    expect(fromSnapshot.result).toBe("('sandpit-secret-openai', True)");
    const notebook = await call(api().api, 'audit.notebook', { sessionId: s.id }, PANEL);
    expect(JSON.stringify(notebook)).not.toContain(VALUE);
    const replay = await call(api().api, 'audit.replay', { sessionId: s.id }, PANEL);
    expect(JSON.stringify(replay)).not.toContain(VALUE);
    for (const format of ['csv', 'jsonl'] as const) {
      const exported = await call(api().api, 'audit.export', { format, filters: {}, limit: 10_000 }, PANEL);
      expect(exported.rows).toBeGreaterThan(0);
      // JSON lines carry the row's sandbox facts, the secret's name among them (the CSV has no such column).
      if (format === 'jsonl') expect(exported.content).toContain('"secrets":["openai"]');
      expect(exported.content).not.toContain(VALUE);
    }

    // Byte for byte: no file of the data folder holds the value (the store holds it sealed only).
    const files = await allFiles(api().config.home);
    expect(files.some((f) => f.endsWith('secrets.json'))).toBe(true);
    for (const file of files) expect((await readIfThere(file)).includes(Buffer.from(VALUE)), file).toBe(false);
    // An assistant cannot list, add or change secrets.
    await expect(call(api().api, 'secrets.list', {}, { transport: 'mcp-stdio', client: 'assistant', principal: 'assistant-1' })).rejects.toThrow('Only the Sandpit panel may see the list of secrets.');
  }, 180_000);

  // The JavaScript image runs Node 18 on the bootstrap base, whose fetch and https ignore HTTPS_PROXY: env-proxy.js
  // (preloaded by the image) sends them through the proxy. Then scans every sandbox process's memory for the value.
  it('Node fetch and https in a JavaScript session get the secret added for its host, a tunnel elsewhere; no process memory of the sandbox holds the value', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Node with a key', language: 'javascript', network: 'packages', allowedHosts: ['other.test'] }, PANEL);
    const secret = (await call(api().api, 'secrets.list', {}, PANEL)).secrets.find((x) => x.name === 'openai');
    await call(api().api, 'secrets.save', { name: 'openai', ...(secret ? {} : { value: VALUE }), hosts: ['api.secret.test'], environments: [...(secret?.environments ?? []), env.id] }, PANEL);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const session = api().sessions.session(s.id);
    const probe = await session.execute(`[process.env.OPENAI_API_KEY, process.env.HTTPS_PROXY ? 'proxy' : 'no proxy']`);
    expect(probe.result).toBe("[ 'sandpit-secret-openai', 'proxy' ]");
    const viaFetch = await session.execute(`const r = await fetch('https://api.secret.test/fetch?fp', { headers: { Authorization: 'Bearer ' + process.env.OPENAI_API_KEY } }); (await r.json()).sha256 === '${BEARER_SHA}'`);
    expect(viaFetch.error).toBeUndefined();
    expect(viaFetch.result).toBe('true');
    const get = (url: string, options: string): string => `await new Promise((resolve, reject) => require('node:https').get('${url}', ${options}, (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => resolve(JSON.parse(b))); }).on('error', reject))`;
    const viaHttps = await session.execute(`(${get('https://api.secret.test/https?fp', '{}')}).sha256 === '${BEARER_SHA}'`);
    expect(viaHttps.error).toBeUndefined();
    expect(viaHttps.result).toBe('true');
    // An allowed host without the secret: the plain tunnel (the test server's own certificate, not verified here).
    const other = await session.execute(`(${get('https://other.test/', "{ rejectUnauthorized: false, headers: { Authorization: 'Bearer ' + process.env.OPENAI_API_KEY } }")}).authorization`);
    expect(other.result).toBe("'Bearer sandpit-secret-openai'");
    // Every other process of the sandbox, all its readable memory, read as the sandbox user. The scanner itself
    // is left out: it holds the needle's two halves, and Node's buffer pool puts them side by side.
    const cut = Math.floor(VALUE.length / 2);
    const scan = [
      "const fs = require('fs');",
      `const a = Buffer.from('${Buffer.from(VALUE.slice(0, cut)).toString('hex')}', 'hex'), b = Buffer.from('${Buffer.from(VALUE.slice(cut)).toString('hex')}', 'hex');`,
      'let found = 0, scanned = 0, procs = 0; const where = [];',
      "for (const pid of fs.readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p) && p !== String(process.pid))) {",
      "  let maps, fd; try { maps = fs.readFileSync('/proc/' + pid + '/maps', 'utf8').split('\\n'); fd = fs.openSync('/proc/' + pid + '/mem', 'r'); } catch { continue; }",
      '  procs++;',
      '  for (const line of maps) {',
      "    const [range, perms] = line.split(' '); if (!range || !perms.startsWith('r')) continue;",
      "    const [lo, hi] = range.split('-').map((x) => BigInt('0x' + x)); const len = Number(hi - lo); if (len > 256 * 1024 * 1024) continue;",
      '    const buf = Buffer.alloc(len); let n = 0; try { n = fs.readSync(fd, buf, 0, len, lo); } catch { continue; }',
      '    scanned += n; let i = buf.indexOf(a);',
      '    while (i >= 0 && i < n) { if (buf.subarray(i + a.length, i + a.length + b.length).equals(b)) { found++; where.push(pid + (pid === String(process.pid) ? " (the scanner)" : "") + " " + fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").replace(/\\0/g, " ").slice(0, 80) + " " + line); } i = buf.indexOf(a, i + 1); }',
      '  }',
      '  fs.closeSync(fd);',
      '}',
      'console.log(JSON.stringify({ found, procs, scanned: scanned > 0, where }));',
    ].join('\n');
    const mem = await call(api().api, 'sessions.runCommand', { sessionId: s.id, command: `node -e "$(echo ${Buffer.from(scan).toString('base64')} | base64 -d)"` }, PANEL);
    expect(mem.stderr).toBe('');
    const got = JSON.parse(mem.stdout.trim().split('\n').at(-1) ?? '{}') as { found: number; procs: number; scanned: boolean };
    expect(got.scanned).toBe(true);
    expect(got.procs).toBeGreaterThan(0);
    expect(got, mem.stdout).toMatchObject({ found: 0 });
  }, 180_000);
  it('pip installs from a private index that demands the secret: the proxy adds it for the index; without it the index refuses', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Private index', language: 'python', network: 'packages' }, PANEL);
    await call(api().api, 'secrets.save', { name: 'index', value: INDEX_VALUE, hosts: ['pypi.secret.test'], sendAs: { kind: 'basic', username: 'token' }, environments: [env.id] }, PANEL);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    const installed = await call(api().api, 'sessions.runCommand', { sessionId: s.id, command: `${PIP} && PYTHONPATH=/tmp/pkgs python3 -c 'import sandpit_demo_b; print(sandpit_demo_b.answer())'` }, PANEL);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Successfully installed sandpit_demo_a-1.0.0 sandpit_demo_b-2.1.0');
    expect(installed.stdout.trim().split('\n').at(-1)).toBe('84');
    const recent = await call(api().api, 'egress.recent', { sessionId: s.id }, PANEL);
    expect(recent.entries.map((e) => e.secretWords).filter(Boolean)).toContain('used secret index for pypi.secret.test');
    // install_packages too: its installer (a helper beside the session) trusts the session's CA bundle, so the proxy
    // puts the secret in for the index as well.
    const viaTool = await call(api().api, 'packages.install', { sessionId: s.id, packages: ['sandpit_demo_a==0.9.0'] }, PANEL);
    expect(viaTool.results).toEqual([{ package: 'sandpit_demo_a==0.9.0', ok: true, version: '0.9.0' }]);
    expect((await sessionOf(s.id).execute('import sandpit_demo_a\nsandpit_demo_a.VALUE')).result).toBe('41');

    // The same index without the secret: a session of an environment that may reach the host but has no secret
    // (a plain tunnel; the sandbox is told to trust the test CA itself) is refused by the index.
    const bare = await call(api().api, 'environments.create', { name: 'Index without a key', language: 'python', network: 'packages', allowedHosts: ['pypi.secret.test'] }, PANEL);
    const t = await call(api().api, 'sessions.create', { environment: bare.id }, PANEL);
    const ca = Buffer.from(upstreamCa.certificate).toString('base64');
    const refused = await call(api().api, 'sessions.runCommand', { sessionId: t.id, command: `echo ${ca} | base64 -d > /tmp/test-ca.pem && ${PIP} --cert /tmp/test-ca.pem 2>&1` }, PANEL);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stdout).toMatch(/No matching distribution found for sandpit_demo_b/);
    // What pip was told (it does not print it without -v): the index's 401.
    const told = await call(api().api, 'sessions.runCommand', { sessionId: t.id, command: 'curl -s -o /dev/null -w "%{http_code}" --cacert /tmp/test-ca.pem https://pypi.secret.test/simple/sandpit-demo-b/' }, PANEL);
    expect(told.stdout).toBe('401');

    // Neither token is in any file of the data folder, nor in any line Sandpit logged.
    for (const file of await allFiles(api().config.home)) {
      const bytes = await readIfThere(file);
      expect(bytes.includes(Buffer.from(INDEX_VALUE)), file).toBe(false);
      expect(bytes.includes(Buffer.from(VALUE)), file).toBe(false);
    }
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(INDEX_VALUE);
    expect(logLines.join('\n')).not.toContain(VALUE);
  }, 300_000);

  it('a session cannot write the CA bundle folder, and no private key is in it', async () => {
    const s = await call(api().api, 'sessions.create', { environment: 'with-a-key' }, PANEL);
    const r = await call(api().api, 'sessions.runCommand', { sessionId: s.id, command: 'ls /etc/sandpit-ca; touch /etc/sandpit-ca/x 2>&1 || true; grep -c "PRIVATE KEY" /etc/sandpit-ca/ca-bundle.pem || true' }, PANEL);
    expect(r.stdout).toContain('ca-bundle.pem');
    expect(r.stdout).toMatch(/Read-only file system/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('0');
  }, 60_000);
  it('an assistant over MCP sees the secrets of environments and sessions by name, host and variable, never the value', async () => {
    const mcp = await connectInProcess(api(), 'secrets-mcp-client');
    try {
      const listed = (await mcp.client.callTool({ name: 'list_environments', arguments: {} })) as unknown as { structuredContent: { environments: Array<{ id: string; secrets?: unknown }> }; content: Array<{ text?: string }> };
      const mine = listed.structuredContent.environments.find((e) => e.id === 'with-a-key');
      expect(mine?.secrets).toEqual([{ name: 'openai', hosts: ['api.secret.test'], variable: 'OPENAI_API_KEY' }]);
      expect(listed.content[0]?.text).toContain('with-a-key: "With a key" (python)');
      expect(listed.content[0]?.text).toContain('its sessions can use the secret openai for api.secret.test (OPENAI_API_KEY holds a stand-in; Sandpit puts the value in)');
      const created = (await mcp.client.callTool({ name: 'create_session', arguments: { environment: 'with-a-key' } })) as unknown as { structuredContent: { secrets?: unknown }; content: Array<{ text?: string }> };
      expect(created.structuredContent.secrets).toEqual([{ name: 'openai', hosts: ['api.secret.test'], variable: 'OPENAI_API_KEY' }]);
      expect(created.content[0]?.text).toContain(', can use the secret openai for api.secret.test (OPENAI_API_KEY holds a stand-in; Sandpit puts the value in)');
      expect(JSON.stringify([listed, created])).not.toContain(VALUE);
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it('asks before an assistant runs code in a session that can use a secret, when the setting says so, naming the secret', async () => {
    const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'assistant', principal: 'assistant-2' };
    const s = await call(api().api, 'sessions.create', { environment: 'with-a-key' }, PANEL);
    await call(api().api, 'settings.update', { patch: { approvals: { askSecretSessions: true } } }, PANEL);
    try {
      const asked = new Promise<{ id: string; detail: string }>((resolve) => {
        const stop = api().bus.on('approval.requested', (a) => {
          stop();
          resolve(a);
        });
      });
      const runCall = call(api().api, 'sessions.execute', { sessionId: s.id, code: 'print(1)' }, ASSISTANT).then(
        () => 'ran',
        (error: unknown) => (error as { code?: string }).code,
      );
      const approval = await asked;
      expect(approval.detail).toContain('its requests can use the secret openai (Sandpit adds it for its hosts)');
      await call(api().api, 'approvals.respond', { id: approval.id, decision: 'deny' }, PANEL);
      expect(await runCall).toBe('DENIED');
    } finally {
      await call(api().api, 'settings.update', { patch: { approvals: { askSecretSessions: false } } }, PANEL);
    }
  }, 60_000);
});

/** A file's bytes, or none when it went between listing and reading (a session's disk removed as the session ended). */
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
