import { describe, expect, it } from 'vitest';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { DockerClient, EngineEndpoint, NetworkSpec } from './docker-client';
import { dockerNetworks } from './docker-networks';

const identity: InstanceIdentity = { instanceId: '6938ac0d-63de-4bb1-9c1e-000000000000', host: 'h', pid: 1, processStart: '1' };

/** A Docker client that records the networks asked for; its endpoint can change, as the engine in use can. */
function recordingClient(): { docker: DockerClient; created: NetworkSpec[]; removed: string[]; endpoint: { current: EngineEndpoint } } {
  const created: NetworkSpec[] = [];
  const removed: string[] = [];
  const endpoint = { current: { kind: 'local', address: '/var/run/docker.sock' } as EngineEndpoint };
  const docker = {
    get endpoint(): EngineEndpoint {
      return endpoint.current;
    },
    createNetwork: (spec: NetworkSpec) => {
      created.push(spec);
      return Promise.resolve('net-1');
    },
    removeNetwork: (id: string) => {
      removed.push(id);
      return Promise.resolve();
    },
  } as Partial<DockerClient> as DockerClient;
  return { docker, created, removed, endpoint };
}

describe('dockerNetworks', () => {
  it('makes internal networks labelled with the instance and their role, so the reaper of a dead instance removes them', async () => {
    const client = recordingClient();
    const networks = dockerNetworks(client.docker, identity);
    expect(await networks.createInternal('sandpit-egress-6938ac0d63de', 'egress')).toBe('net-1');
    expect(client.created).toEqual([
      {
        name: 'sandpit-egress-6938ac0d63de',
        internal: true,
        labels: {
          'dev.sandpit.managed': 'true',
          'dev.sandpit.instance': identity.instanceId,
          'dev.sandpit.owner-host': 'h',
          'dev.sandpit.owner-pid': '1',
          'dev.sandpit.owner-start': '1',
          'dev.sandpit.role': 'egress',
        },
      },
    ]);
    await networks.remove('net-1');
    expect(client.removed).toEqual(['net-1']);
  });

  it("gives the default bridge as the open network, and the engine's endpoint as it is at each call", () => {
    const client = recordingClient();
    const networks = dockerNetworks(client.docker, identity);
    expect(networks.openNetwork).toBe('bridge');
    expect(networks.endpoint).toEqual({ kind: 'local', address: '/var/run/docker.sock' });
    client.endpoint.current = { kind: 'remote', address: 'build-box:2376 (TLS)' };
    expect(networks.endpoint).toEqual({ kind: 'remote', address: 'build-box:2376 (TLS)' });
  });
});
