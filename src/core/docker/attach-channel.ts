import type { DockerClient } from './docker-client';
import type { Logger } from '../log';
import { LineChannel } from '../sandbox/agent-channel';
import type { AgentChannel } from '../sandbox/agent-channel';

/** The agent's channel over the container's attached stdin/stdout: works with any engine, remote too. */
export async function attachChannel(docker: DockerClient, containerId: string, log: Logger): Promise<AgentChannel> {
  const streams = await docker.attachContainer(containerId);
  // The agent's own stderr (not user code's: that is captured) only carries interpreter failures.
  streams.stderr.on('data', (chunk: Buffer) => log.warn('agent stderr', { containerId, text: chunk.toString('utf8').slice(0, 2_000) }));
  return new LineChannel('attach', streams.stdout, streams.stdin, () => streams.close());
}
