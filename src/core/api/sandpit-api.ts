import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import type { DaemonEvents } from '../docker/daemon-events';
import type { EngineMonitor } from '../docker/engine-monitor';
import type { DockerClient } from '../docker/docker-client';
import type { ArtifactStore } from '../files/artifact-store';
import { detectMime } from '../files/mime';
import type { SessionManager } from '../sessions/session-manager';
import { listWorkspace, readWorkspaceFile, writeWorkspaceFile } from '../sessions/session-files';

/** Who is calling: used for default sessions, ownership, approvals and the audit log. */
export interface CallContext {
  transport: 'ipc' | 'http' | 'mcp-http' | 'mcp-stdio' | 'rest' | 'internal';
  client?: string;
}

export type Handlers = { [M in MethodName]: (input: MethodParsedInput<M>, context: CallContext) => Promise<MethodOutput<M>> };

export interface SandpitApiDeps {
  sessions: SessionManager;
  engine: EngineMonitor;
  docker: DockerClient;
  events: DaemonEvents;
  artifacts: ArtifactStore;
}

/**
 * The one implementation of the contract. The panel (IPC, /api), REST and the MCP tools all call
 * these handlers; none has a second code path.
 */
export function createSandpitApi(deps: SandpitApiDeps): Handlers {
  const { sessions, engine, docker, artifacts } = deps;
  return {
    'engine.status': async () => (engine.current.state === 'up' ? engine.current : engine.check()),
    'sessions.create': async (input, context) => sessions.create({ ...input, client: input.client ?? context.client }),
    'sessions.list': async () => ({ sessions: sessions.list() }),
    'sessions.get': async ({ sessionId }) => sessions.get(sessionId),
    'sessions.stop': async ({ sessionId }) => {
      await sessions.stop(sessionId);
      return { sessionId, stopped: true };
    },
    'sessions.execute': async ({ sessionId, code, timeoutMs }) => sessions.execute(sessionId, code, { timeoutMs }),
    'sessions.interrupt': async ({ sessionId }) => ({ interrupted: sessions.interrupt(sessionId) }),
    'files.upload': async ({ sessionId, path, contentBase64 }) => {
      sessions.touch(sessionId);
      return writeWorkspaceFile(docker, sessions.runtimeOf(sessionId).containerId, path, Buffer.from(contentBase64, 'base64'));
    },
    'files.download': async ({ sessionId, path }) => {
      sessions.touch(sessionId);
      const file = await readWorkspaceFile(docker, sessions.runtimeOf(sessionId).containerId, path);
      return { path: file.path, size: file.content.length, mime: detectMime(file.path, file.content.subarray(0, 64)), contentBase64: file.content.toString('base64') };
    },
    'files.list': async ({ sessionId, path }) => {
      sessions.touch(sessionId);
      return { path, entries: await listWorkspace(docker, sessions.runtimeOf(sessionId).containerId, path) };
    },
    'artifacts.list': async ({ sessionId, limit }) => ({ artifacts: await artifacts.list({ sessionId, limit }) }),
  };
}
