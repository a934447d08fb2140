import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { NetworkInfo, NetworkRole, SandboxNetworks } from '../sandbox/sandbox-networks';
import type { DockerClient } from './docker-client';
import { LABEL, instanceLabels } from './labels';

/** Docker's default bridge: the network of sessions whose policy is "open". */
const OPEN_NETWORK = 'bridge';

/** The network port over a Docker engine: networks labelled with this instance (the reaper removes them after a crash). */
export function dockerNetworks(docker: DockerClient, identity: InstanceIdentity): SandboxNetworks {
  return {
    // Read at each call: the engine in use can change while Sandpit runs.
    get endpoint(): SandboxNetworks['endpoint'] {
      return { kind: docker.endpoint.kind, address: docker.endpoint.address };
    },
    openNetwork: OPEN_NETWORK,
    createInternal: (name: string, role: NetworkRole): Promise<string> =>
      docker.createNetwork({ name, labels: { ...instanceLabels(identity), [LABEL.role]: role }, internal: true }),
    inspect: (idOrName: string): Promise<NetworkInfo | undefined> => docker.inspectNetwork(idOrName),
    remove: (id: string): Promise<void> => docker.removeNetwork(id),
  };
}
