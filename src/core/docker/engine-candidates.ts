import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import { DockerodeClient } from './dockerode-client';
import { discoverEngines } from './engine-discovery';

export interface EngineCandidateView {
  host: string;
  source: string;
  inUse: boolean;
  reachable: boolean;
  version?: string;
  problem?: string;
}

/** Every engine this machine points at (the docker CLI's order, then the usual sockets), each tried now. */
export async function engineCandidates(setting: string | undefined, inUse: string, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<EngineCandidateView[]> {
  const candidates = await discoverEngines(setting, { env });
  return Promise.all(
    candidates.map(async (candidate): Promise<EngineCandidateView> => {
      try {
        const client = new DockerodeClient({ engine: candidate, logger: log });
        const address = client.endpoint.address;
        try {
          const v = await client.ping(3_000);
          return { host: candidate.host, source: candidate.source, inUse: address === inUse, reachable: true, version: v.version };
        } catch (error) {
          return { host: candidate.host, source: candidate.source, inUse: address === inUse, reachable: false, problem: toErrorBody(error).message };
        }
      } catch (error) {
        return { host: candidate.host, source: candidate.source, inUse: false, reachable: false, problem: toErrorBody(error).message };
      }
    }),
  );
}
