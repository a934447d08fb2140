import type { Logger } from '../log';
import type { DockerClient } from './docker-client';
import { isOwnerDead } from '../sandbox/instance-identity';
import { LABEL } from './labels';
import type { InstanceIdentity } from '../sandbox/instance-identity';

/**
 * Removes the Docker networks (the egress network) of dead Sandpit instances, and nothing else:
 * only networks carrying our managed label are looked at. Run it after the containers are gone — a
 * network with containers on it cannot be removed (that failure is logged and skipped).
 */
export async function reapDeadNetworks(docker: DockerClient, self: InstanceIdentity, log: Logger): Promise<string[]> {
  const removed: string[] = [];
  for (const n of await docker.listNetworks({ [LABEL.managed]: 'true' })) {
    const owner = { host: n.labels[LABEL.ownerHost], pid: n.labels[LABEL.ownerPid], start: n.labels[LABEL.ownerStart], instance: n.labels[LABEL.instance] };
    if (owner.instance === self.instanceId || !isOwnerDead(owner, self)) continue;
    log.info('reaping network of a dead instance', { network: n.name, networkId: n.id, instance: owner.instance });
    try {
      await docker.removeNetwork(n.id);
      removed.push(n.name);
    } catch (error) {
      log.warn('reaper could not remove a leftover', { network: n.name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return removed;
}
