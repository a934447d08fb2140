import { describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import type { DockerClient, EngineEndpoint, EngineVersion } from './docker-client';
import { dockerFixHint } from './docker-errors';
import { checkDocker, checkGvisor } from './engine-checks';

const LOCAL: EngineEndpoint = { kind: 'local', address: '/var/run/docker.sock' };

function fakeDocker(ping: () => Promise<EngineVersion>): DockerClient {
  return { endpoint: LOCAL, ping } as Partial<DockerClient> as DockerClient;
}

describe('checkDocker', () => {
  it('fails with the address, the reason and how to start Docker when the engine does not answer', async () => {
    const docker = fakeDocker(() => Promise.reject(new SandpitError('DOCKER_UNAVAILABLE', 'Docker is not running.')));
    const result = await checkDocker(docker, 'DOCKER_HOST');
    expect(result.ok).toBe(false);
    expect(result.name).toBe('Docker engine');
    expect(result.detail).toBe('/var/run/docker.sock (found through DOCKER_HOST): Docker is not running.');
    expect(result.fix).toBe(dockerFixHint(LOCAL));
  });

  it('reports the version, the endpoint and where it was found', async () => {
    const version: EngineVersion = { product: 'docker', version: '27.3.1', apiVersion: '1.47', os: 'linux', runtimes: ['runc', 'runsc'] };
    const result = await checkDocker(fakeDocker(() => Promise.resolve(version)), 'docker context "colima"');
    expect(result).toEqual({
      name: 'Docker engine',
      ok: true,
      detail: '27.3.1 (API 1.47) at /var/run/docker.sock (found through docker context "colima")',
      version,
    });
  });
});

describe('checkDocker on Podman', () => {
  it('names Podman and its Docker-compatible API', async () => {
    const version: EngineVersion = { product: 'podman', version: '4.3.1', apiVersion: '1.41', os: 'linux', runtimes: ['crun', 'runc', 'runsc'] };
    const result = await checkDocker(fakeDocker(() => Promise.resolve(version)), 'DOCKER_HOST');
    expect(result.ok).toBe(true);
    expect(result.detail).toMatch(/^Podman 4\.3\.1 through its Docker-compatible API \(1\.41\) at \/var\/run\/docker\.sock \(found through DOCKER_HOST\)\. Works as on Docker except Strong isolation \(not offered\) and: /);
    expect(result.detail).toContain('Podman reports neither OOMKilled nor an oom event');
  });
});

describe('checkGvisor', () => {
  const engine = (runtimes: string[]): EngineVersion => ({ product: 'docker', version: '27.3.1', apiVersion: '1.47', os: 'linux', runtimes });

  it('is fine when both gVisor runtimes are registered', () => {
    expect(checkGvisor(engine(['runc', 'runsc', 'runsc-nonet']), true)).toEqual({ name: 'Strong isolation (gVisor)', ok: true, detail: 'runtimes runsc and runsc-nonet registered. gVisor serves sandboxes without network; a session with network access may not run under it on this engine (it is refused in plain words when it starts): give such environments Standard isolation' });
  });

  it('says how to set it up, as a note when optional and as a problem when Strong is the default', () => {
    const optional = checkGvisor(engine(['runc', 'runsc']), false, 'linux');
    expect(optional.ok).toBe(true);
    expect(optional.detail).toContain('runsc-nonet not registered');
    expect(optional.detail).toContain('sudo apt-get install runsc');
    const required = checkGvisor(engine(['runc']), true, 'darwin');
    expect(required.ok).toBe(false);
    expect(required.detail).toContain('Settings make Strong isolation the default');
    expect(required.fix).toMatch(/Linux only/);
  });
});

describe('checkGvisor on Podman', () => {
  const podman: EngineVersion = { product: 'podman', version: '4.3.1', apiVersion: '1.41', os: 'linux', runtimes: ['crun', 'runc', 'runsc'] };

  it('says Strong isolation is not offered there even when Podman lists a runsc, as a note or as a problem', () => {
    const optional = checkGvisor(podman, false, 'linux');
    expect(optional.ok).toBe(true);
    expect(optional.detail).toMatch(/^not offered on Podman: Strong isolation \(gVisor\)/);
    expect(optional.detail).toContain('Sessions use Standard isolation here.');
    const required = checkGvisor(podman, true, 'linux');
    expect(required.ok).toBe(false);
    expect(required.detail).toContain('Settings make Strong isolation the default');
    expect(required.fix).toMatch(/default isolation to Standard/);
  });
});
