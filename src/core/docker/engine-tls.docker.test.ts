// A Docker engine behind TLS with client certificates, for real: a TLS-terminating proxy on loopback in
// front of the engine's socket, checking client certificates signed by a CA this test makes.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import type { Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { startTestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';
import { DockerodeClient } from './dockerode-client';

const SOCKET = '/var/run/docker.sock';

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate signed by it, in `dir`. */
function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${name} test CA`, '-keyout', `${name}-ca-key.pem`, '-out', `${name}-ca.pem`]);
  for (const [who, ext] of [['server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
    openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name} ${who}`, '-keyout', `${name}-${who}-key.pem`, '-out', `${name}-${who}.csr`]);
    execFileSync('sh', ['-c', `printf '${ext}\\n' > ${name}-${who}.ext`], { cwd: dir });
    openssl(dir, ['x509', '-req', '-in', `${name}-${who}.csr`, '-CA', `${name}-ca.pem`, '-CAkey', `${name}-ca-key.pem`, '-CAcreateserial', '-days', '1', '-extfile', `${name}-${who}.ext`, '-out', `${name}-${who}.pem`]);
  }
}

describe('a Docker engine behind TLS with client certificates', () => {
  let dir: string;
  let proxy: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandpit-tls-'));
    makeCa(dir, 'good');
    makeCa(dir, 'rogue');
    const read = (file: string): Promise<Buffer> => readFile(join(dir, file));
    proxy = createServer(
      { key: await read('good-server-key.pem'), cert: await read('good-server.pem'), ca: await read('good-ca.pem'), requestCert: true, rejectUnauthorized: true },
      (client) => {
        const engine = connect(SOCKET);
        client.pipe(engine).pipe(client);
        const close = (): void => {
          client.destroy();
          engine.destroy();
        };
        client.on('error', close);
        engine.on('error', close);
      },
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    port = (proxy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => proxy?.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const client = (ca: string, who: string | undefined): DockerodeClient =>
    new DockerodeClient({
      engine: {
        host: `tcp://127.0.0.1:${port}`,
        source: 'the test',
        tls: { ca: join(dir, `${ca}-ca.pem`), ...(who ? { cert: join(dir, `${who}.pem`), key: join(dir, `${who}-key.pem`) } : {}), verify: true },
      },
      logger: silentLogger,
    });

  it('answers with the right client certificate, and sessions run through it (over the attach channel)', async () => {
    const docker = client('good', 'good-client');
    expect(docker.endpoint).toMatchObject({ address: `127.0.0.1:${port} (TLS)`, kind: 'local', tcp: true });
    expect((await docker.ping(10_000)).version).toBeTruthy();
    const sp = await startTestSandpit({}, { docker });
    try {
      expect(sp.sessions.channelKind).toBe('attach');
      const created = sp.sessions.session((await newSession(sp)).id);
      expect((await created.execute('print("over TLS")')).stdout).toBe('over TLS\n');
    } finally {
      await sp.cleanup();
    }
  });

  it.each([
    ['a client certificate of another CA', 'good', 'rogue-client'],
    ['no client certificate', 'good', undefined],
    ['an engine certificate it cannot verify', 'rogue', 'good-client'],
  ])('refuses %s with a clear error', async (_what, ca, who) => {
    const error = await client(ca, who).ping(10_000).then(() => undefined, (e: unknown) => e as Error & { code: string });
    expect(error?.code).toBe('DOCKER_UNAVAILABLE');
    expect(error?.message, error?.message).toMatch(/could not agree on TLS/);
    expect(error?.message).toContain(`127.0.0.1:${port}`);
  });
});
