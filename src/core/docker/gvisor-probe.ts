import { toErrorBody } from '../../shared/api/errors';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { newId } from '../util/ids';
import { hardenedContainerSpec } from './container-profile';
import type { DockerClient } from './docker-client';
import { LABEL, sessionLabels } from './labels';
import type { InstanceIdentity } from '../sandbox/instance-identity';

/**
 * Whether a gVisor sandbox on `network` starts on this engine: a hardened container that only runs `true`
 * (it sends nothing). Undefined when it does; else what the engine said, in its words.
 */
export async function probeGvisorNetwork(
  docker: DockerClient,
  probe: { runtime: string; image: string; network: string; identity: InstanceIdentity },
): Promise<string | undefined> {
  const spec = hardenedContainerSpec({
    name: `sandpit-probe-${newId('p', 4)}`,
    image: probe.image,
    limits: { ...DEFAULT_LIMITS, memoryMb: 64, pids: 16 },
    labels: sessionLabels(probe.identity, 'gvisor-probe', { [LABEL.role]: 'probe' }),
    network: probe.network,
    runtime: probe.runtime,
    cmd: ['true'],
  });
  spec.openStdin = false;
  try {
    const r = await docker.runToCompletion(spec, { timeoutMs: 30_000, maxOutputBytes: 16 * 1024 });
    if (r.timedOut) return 'a gVisor sandbox with a network did not start within 30 s';
    return r.exitCode === 0 ? undefined : `a gVisor sandbox with a network exited with ${r.exitCode}: ${r.stderr.trim().slice(0, 300)}`;
  } catch (error) {
    return toErrorBody(error).message.replace(/^Docker failed to [^:]*: /, '').slice(0, 400);
  }
}
