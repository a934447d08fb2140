import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { toErrorBody } from '../../shared/api/errors';
import type { Artifact } from '../../shared/domain/artifact';
import { NOTEBOOK_MIME } from '../notebook/notebook-builder';
import { artifactUri } from './artifact-content';
import type { ToolKit } from './tool-kit';
import { CONSOLE_APP_URI, CONSOLE_RESOURCE_META, MCP_APP_MIME, consoleAppHtml } from './console-app';

/** resources/list stays small: this many artifacts, sessions, and files per session at most. */
const LIST_ARTIFACTS = 200;
const LIST_SESSIONS = 20;
const LIST_FILES_PER_SESSION = 50;
const SHA256 = /^[a-f0-9]{64}$/;
/** JSON-RPC error of a resource that does not exist (or is not this client's). */
const RESOURCE_NOT_FOUND = -32002;

function variable(variables: Variables, name: string): string {
  const value = variables[name];
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `The ${name} in the URI is not valid.`);
  }
}

function notFound(uri: URL, error?: unknown): McpError {
  const why = error === undefined ? '' : ` (${toErrorBody(error).code}: ${toErrorBody(error).message})`;
  return new McpError(RESOURCE_NOT_FOUND, `Resource ${uri.href} not found${why}`, { uri: uri.href });
}

function artifactResource(artifact: Artifact): Resource {
  return {
    uri: artifactUri(artifact.sha256),
    name: artifact.path,
    title: `${artifact.path} (session ${artifact.sessionId})`,
    mimeType: artifact.mime,
    size: artifact.size,
  };
}

/** Artifacts this client may see: those of its current sessions, and those it was shown in results. */
async function visibleArtifacts(kit: ToolKit): Promise<Artifact[]> {
  const { artifacts } = await kit.call('artifacts.list', { limit: LIST_ARTIFACTS });
  const bySha = new Map<string, Artifact>();
  for (const artifact of [...artifacts, ...kit.artifacts.list()])
    if (!bySha.has(artifact.sha256)) bySha.set(artifact.sha256, artifact);
  return [...bySha.values()].slice(0, LIST_ARTIFACTS);
}

async function mayReadArtifact(kit: ToolKit, sha256: string): Promise<boolean> {
  if (kit.context().principal === undefined || kit.artifacts.get(sha256)) return true;
  const { artifacts } = await kit.call('artifacts.list', { limit: 10_000 });
  return artifacts.some((a) => a.sha256 === sha256);
}

export function sessionFileUri(sessionId: string, path: string): string {
  return `sandpit://sessions/${encodeURIComponent(sessionId)}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export function sessionNotebookUri(sessionId: string): string {
  return `sandpit://sessions/${encodeURIComponent(sessionId)}/notebook.ipynb`;
}

/**
 * Resources: artifacts at `sandpit://artifacts/{sha256}` (kept after their session ends) and the files of
 * the caller's sessions at `sandpit://sessions/{session_id}/files/{+path}`, and a session's history as a Jupyter
 * notebook at `sandpit://sessions/{session_id}/notebook.ipynb` (ended sessions too). Only what the caller owns.
 */
export function registerResources(server: McpServer, kit: ToolKit): void {
  // The console in the chat (issue 23, MCP Apps).
  server.registerResource(
    'console',
    CONSOLE_APP_URI,
    { title: 'Sandpit console', description: 'Shows a run\'s output, pictures and tables in the chat (MCP Apps).', mimeType: MCP_APP_MIME, _meta: CONSOLE_RESOURCE_META },
    async () => ({ contents: [{ uri: CONSOLE_APP_URI, mimeType: MCP_APP_MIME, text: await consoleAppHtml(), _meta: CONSOLE_RESOURCE_META }] }),
  );
  server.registerResource(
    'artifact',
    new ResourceTemplate('sandpit://artifacts/{sha256}', {
      list: async () => ({ resources: (await visibleArtifacts(kit)).map(artifactResource) }),
    }),
    {
      title: 'Artifact',
      description:
        'A file a run created or changed, or a picture it displayed; addressed by its sha256 and kept after the session ends.',
    },
    async (uri, variables) => {
      const sha256 = variable(variables, 'sha256');
      if (!SHA256.test(sha256) || !(await mayReadArtifact(kit, sha256))) throw notFound(uri);
      try {
        const { artifact, contentBase64 } = await kit.call('artifacts.read', { sha256 });
        return { contents: [{ uri: uri.href, mimeType: artifact.mime, blob: contentBase64 }] };
      } catch (error) {
        throw notFound(uri, error);
      }
    },
  );

  server.registerResource(
    'session-notebook',
    new ResourceTemplate('sandpit://sessions/{session_id}/notebook.ipynb', {
      list: async () => {
        const { sessions } = await kit.call('sessions.list', {});
        return {
          resources: sessions.slice(0, LIST_SESSIONS).map((session) => ({
            uri: sessionNotebookUri(session.id),
            name: `${session.name}.ipynb`,
            title: `Notebook of ${session.name} (session ${session.id})`,
            mimeType: NOTEBOOK_MIME,
          })),
        };
      },
    }),
    {
      title: 'Session notebook',
      description:
        "A session's runs as a Jupyter notebook (nbformat 4.5): one code cell per run with its output, pictures and errors, from the audit log; kept after the session ends.",
      mimeType: NOTEBOOK_MIME,
    },
    async (uri, variables) => {
      const sessionId = variable(variables, 'session_id');
      try {
        const notebook = await kit.call('audit.notebook', { sessionId });
        return { contents: [{ uri: uri.href, mimeType: notebook.mime, text: notebook.content }] };
      } catch (error) {
        throw notFound(uri, error);
      }
    },
  );

  server.registerResource(
    'session-file',
    new ResourceTemplate('sandpit://sessions/{session_id}/files/{+path}', {
      list: async () => {
        const { sessions } = await kit.call('sessions.list', {});
        const resources: Resource[] = [];
        for (const session of sessions.slice(0, LIST_SESSIONS)) {
          const listing = await kit.call('files.list', { sessionId: session.id, path: '' }).catch(() => undefined);
          for (const entry of (listing?.entries ?? [])
            .filter((e) => e.type === 'file')
            .slice(0, LIST_FILES_PER_SESSION)) {
            resources.push({
              uri: sessionFileUri(session.id, entry.path),
              name: entry.path,
              title: `${entry.path} (session ${session.id})`,
              size: entry.size,
            });
          }
        }
        return { resources };
      },
    }),
    {
      title: 'Session file',
      description: 'A file in the /workspace of one of your sessions (gone when the session stops).',
    },
    async (uri, variables) => {
      const sessionId = variable(variables, 'session_id');
      const path = variable(variables, 'path');
      try {
        const file = await kit.call('files.read', { sessionId, path });
        return {
          contents: [
            file.encoding === 'utf8'
              ? { uri: uri.href, mimeType: file.mime, text: file.content }
              : { uri: uri.href, mimeType: file.mime, blob: file.content },
          ],
        };
      } catch (error) {
        throw notFound(uri, error);
      }
    },
  );
}
