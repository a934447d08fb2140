import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverEngines } from './engine-discovery';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sandpit-engines-'));
});
afterEach(async () => rm(home, { recursive: true, force: true }));

const none = async (): Promise<boolean> => false;

async function writeContext(name: string, host: string, tls = false, skipVerify = false): Promise<void> {
  const id = createHash('sha256').update(name).digest('hex');
  await mkdir(join(home, '.docker', 'contexts', 'meta', id), { recursive: true });
  await writeFile(join(home, '.docker', 'contexts', 'meta', id, 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host, SkipTLSVerify: skipVerify } } }));
  if (tls) {
    const dir = join(home, '.docker', 'contexts', 'tls', id, 'docker');
    await mkdir(dir, { recursive: true });
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) await writeFile(join(dir, f), 'x');
  }
}

describe('discoverEngines, the docker CLI way', () => {
  it('puts the Sandpit setting first, then DOCKER_HOST with its TLS files', async () => {
    const found = await discoverEngines('unix:///srv/docker.sock', {
      env: { DOCKER_HOST: 'tcp://10.0.0.5:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' },
      home,
      exists: none,
      platform: 'linux',
    });
    expect(found[0]).toEqual({ host: 'unix:///srv/docker.sock', source: 'the Sandpit setting' });
    expect(found[1]).toEqual({ host: 'tcp://10.0.0.5:2376', source: 'DOCKER_HOST', tls: { ca: '/certs/ca.pem', cert: '/certs/cert.pem', key: '/certs/key.pem', verify: true } });
  });

  it('reads DOCKER_CONTEXT, else the current context of config.json, with its TLS material', async () => {
    await writeContext('colima', `unix://${home}/.colima/default/docker.sock`);
    await writeContext('remote', 'tcp://build.example:2376', true);
    await mkdir(join(home, '.docker'), { recursive: true });
    await writeFile(join(home, '.docker', 'config.json'), JSON.stringify({ currentContext: 'colima' }));
    const exists = async (path: string): Promise<boolean> => path.endsWith('.pem') && path.includes(createHash('sha256').update('remote').digest('hex'));
    const current = await discoverEngines(undefined, { env: {}, home, exists, platform: 'darwin' });
    expect(current[0]).toEqual({ host: `unix://${home}/.colima/default/docker.sock`, source: 'docker context "colima"' });
    const chosen = await discoverEngines(undefined, { env: { DOCKER_CONTEXT: 'remote' }, home, exists, platform: 'darwin' });
    const id = createHash('sha256').update('remote').digest('hex');
    const tls = join(home, '.docker', 'contexts', 'tls', id, 'docker');
    expect(chosen[0]).toEqual({ host: 'tcp://build.example:2376', source: 'docker context "remote"', tls: { ca: join(tls, 'ca.pem'), cert: join(tls, 'cert.pem'), key: join(tls, 'key.pem'), verify: true } });
  });

  it('finds the sockets of Docker Desktop, Colima, Rancher Desktop, OrbStack and Podman when they exist', async () => {
    const present = new Set([join(home, '.docker', 'run', 'docker.sock'), join(home, '.colima', 'default', 'docker.sock'), join(home, '.rd', 'docker.sock'), join(home, '.orbstack', 'run', 'docker.sock'), '/run/user/1000/podman/podman.sock']);
    const found = await discoverEngines(undefined, { env: { XDG_RUNTIME_DIR: '/run/user/1000' }, home, exists: async (p) => present.has(p), platform: 'darwin' });
    expect(found.map((f) => f.source)).toEqual(['Docker Desktop', 'Colima', 'Rancher Desktop', 'OrbStack', 'Podman']);
  });

  it('falls back to the default socket, named, when nothing is found', async () => {
    expect(await discoverEngines(undefined, { env: {}, home, exists: none, platform: 'linux' })).toEqual([{ host: 'unix:///var/run/docker.sock', source: 'the default socket' }]);
    expect((await discoverEngines(undefined, { env: {}, home, exists: none, platform: 'win32' }))[0]?.host).toBe('npipe:////./pipe/docker_engine');
  });
});
