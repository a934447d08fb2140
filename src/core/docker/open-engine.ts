import type { Logger } from '../log';
import { DockerodeClient } from './dockerode-client';
import { discoverEngines } from './engine-discovery';
import type { EngineCandidate } from './engine-discovery';

/** The engine the docker CLI would use (the setting first), as a client, with where it was found. */
export async function openEngine(setting: string | undefined, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<{ docker: DockerodeClient; engine: EngineCandidate }> {
  const [engine] = await discoverEngines(setting, { env });
  // discoverEngines always names at least the default socket.
  return { docker: new DockerodeClient({ engine: engine!, logger }), engine: engine! };
}
