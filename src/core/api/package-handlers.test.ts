import { describe, expect, it, vi } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { DockerClient } from '../docker/docker-client';
import { packageHandlers } from './package-handlers';
import type { HandlerKit } from './sandpit-api';

/** A kit whose session runs work at once; the engine must never be reached in these tests. */
function kit(options: { egressProxy: boolean }): { kit: HandlerKit; docker: DockerClient } {
  const docker = new Proxy({} as DockerClient, {
    get: (_t, name) => {
      throw new Error(`the engine was called (${String(name)})`);
    },
  });
  const runtime = { options: { identity: {} }, packagesVolume: 'v', containerId: 'c' };
  const k = {
    docker,
    config: { egressProxy: options.egressProxy, pipIndexUrl: 'https://pypi.org/simple', npmRegistryUrl: 'x', installNetwork: 'bridge', installTimeoutMs: 1000 },
    environments: { egress: () => undefined },
    sessions: {
      get: () => ({ language: 'python', image: 'img' }),
      enqueue: vi.fn((_id: string, work: (r: unknown) => Promise<unknown>) => work(runtime)),
      logger: {},
      recordPackages: vi.fn(),
    },
    target: () => Promise.resolve('ses-1'),
  } as unknown as HandlerKit;
  return { kit: k, docker };
}

describe('packages.install and the egress proxy', () => {
  it('refuses to install around the proxy when the proxy is on but not running (no silent open network)', async () => {
    const { kit: k } = kit({ egressProxy: true });
    const error = await packageHandlers(k)['packages.install']({ packages: ['requests'] }, { transport: 'internal' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSandpitError(error, 'DOCKER_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/egress proxy .* is not running/);
  });

  it('refuses a bad package name before any process starts', async () => {
    const { kit: k } = kit({ egressProxy: false });
    await expect(packageHandlers(k)['packages.install']({ packages: ['numpy; rm -rf /'] }, { transport: 'internal' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
