import { SandpitError } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';
import type { FileEntry } from '../../shared/domain/artifact';
import { fromWorkspacePath } from '../files/safe-path';
import type { ReplyCollector } from './agent-requests';
import type { FsErrorCode, RequestReply } from '../sandbox/protocol';
import type { SandboxDriver } from './sandbox-driver';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;
/** Raw bytes per message when a file goes to the agent (base64 in a JSON line). */
const CHUNK_BYTES = 1024 * 1024;
/** A file operation's time: a base plus time per MiB (a full disk or a slow one must not hang a queue). */
const BASE_TIMEOUT_MS = 30_000;
const PER_MIB_TIMEOUT_MS = 1_000;

/** What the workspace's files are reached through: the agent, inside the sandbox, as the sandbox user. */
export type WorkspaceAgent = Pick<SandboxDriver, 'request'>;

export interface WorkspaceUsage {
  usedBytes: number;
  totalBytes: number;
  freeBytes: number;
  /** The regular files' sizes added up. */
  fileBytes: number;
}

const ERROR_CODES: Record<FsErrorCode, ErrorCode> = {
  NOT_FOUND: 'NOT_FOUND',
  NOT_A_FILE: 'INVALID_INPUT',
  NOT_A_DIRECTORY: 'INVALID_INPUT',
  LINK: 'INVALID_INPUT',
  INVALID_PATH: 'INVALID_INPUT',
  TOO_LARGE: 'LIMIT_EXCEEDED',
  NO_SPACE: 'LIMIT_EXCEEDED',
  DENIED: 'INVALID_INPUT',
  IO: 'EXEC_FAILED',
};

function timeoutFor(bytes: number): number {
  return BASE_TIMEOUT_MS + Math.ceil(bytes / (1024 * 1024)) * PER_MIB_TIMEOUT_MS;
}

/** The agent's refusal as a SandpitError (its message is the sandbox's, so it is capped and named as such). */
function refusal(reply: Extract<RequestReply, { type: 'fs-error' }>, relative: string): SandpitError {
  const where = relative === '' ? '/workspace' : `/workspace/${relative}`;
  return new SandpitError(ERROR_CODES[reply.code], `${where}: ${reply.message.slice(0, 500)}`, { reason: reply.code });
}

function unexpected(reply: RequestReply): SandpitError {
  return new SandpitError('EXEC_FAILED', `The sandbox answered a file operation with "${reply.type}".`);
}

/**
 * Writes one file into /workspace (created or replaced, or appended to), through the agent as the sandbox
 * user: parents are made, a link anywhere in the path is refused, a full disk says "No space left on device".
 */
export async function writeWorkspaceFile(agent: WorkspaceAgent, path: string, content: Buffer, append = false): Promise<{ path: string; size: number }> {
  const relative = fromWorkspacePath(path);
  if (content.length > MAX_UPLOAD_BYTES) {
    throw new SandpitError('LIMIT_EXCEEDED', `"${relative}" is ${content.length} bytes; files of up to ${MAX_UPLOAD_BYTES} bytes can be written.`);
  }
  const collect: ReplyCollector<number> = (reply) => {
    if (reply.type === 'fs-done') return reply.size;
    if (reply.type === 'fs-error') throw refusal(reply, relative);
    throw unexpected(reply);
  };
  const size = await agent.request(
    (id) => {
      const chunks = Math.max(1, Math.ceil(content.length / CHUNK_BYTES));
      return Array.from({ length: chunks }, (_, i) => ({
        type: 'fs' as const,
        id,
        op: 'write' as const,
        path: relative,
        // Only the first chunk replaces the file; the rest add to it.
        append: i === 0 ? append : true,
        data: content.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES).toString('base64'),
        last: i === chunks - 1,
      }));
    },
    collect,
    timeoutFor(content.length),
    `writing ${relative}`,
  );
  return { path: relative, size };
}

/** Reads one regular file from /workspace through the agent; links, devices, FIFOs and directories are refused. */
export async function readWorkspaceFile(agent: WorkspaceAgent, path: string, maxBytes = MAX_DOWNLOAD_BYTES): Promise<{ path: string; content: Buffer }> {
  const relative = fromWorkspacePath(path);
  const parts: Buffer[] = [];
  let received = 0;
  const collect: ReplyCollector<Buffer> = (reply) => {
    if (reply.type === 'fs-data') {
      const chunk = Buffer.from(reply.data, 'base64');
      received += chunk.length;
      // The agent is untrusted: never hold more than was asked for.
      if (received > maxBytes) throw new SandpitError('LIMIT_EXCEEDED', `/workspace/${relative} is larger than ${maxBytes} bytes.`);
      parts.push(chunk);
      return undefined;
    }
    if (reply.type === 'fs-done') return Buffer.concat(parts);
    if (reply.type === 'fs-error') throw refusal(reply, relative);
    throw unexpected(reply);
  };
  const content = await agent.request((id) => [{ type: 'fs', id, op: 'read', path: relative, maxBytes }], collect, timeoutFor(maxBytes), `reading ${relative}`);
  return { path: relative, content };
}

const MAX_LIST_ENTRIES = 5_000;

/** Lists one directory level of /workspace through the agent (links are listed as links, never followed). */
export async function listWorkspace(agent: WorkspaceAgent, path: string): Promise<FileEntry[]> {
  const relative = fromWorkspacePath(path, { allowRoot: true });
  const collect: ReplyCollector<FileEntry[]> = (reply) => {
    if (reply.type === 'fs-list') {
      return reply.entries.slice(0, MAX_LIST_ENTRIES).map((entry) => ({
        path: relative ? `${relative}/${entry.name}` : entry.name,
        type: entry.type,
        size: entry.size,
        modifiedAt: new Date(entry.mtime * 1000).toISOString(),
      }));
    }
    if (reply.type === 'fs-error') throw refusal(reply, relative);
    throw unexpected(reply);
  };
  const entries = await agent.request((id) => [{ type: 'fs', id, op: 'list', path: relative }], collect, BASE_TIMEOUT_MS, `listing ${relative || '/workspace'}`);
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/** How full the workspace is (the disk it is on, and its files). */
export async function workspaceUsage(agent: WorkspaceAgent): Promise<WorkspaceUsage> {
  const collect: ReplyCollector<WorkspaceUsage> = (reply) => {
    if (reply.type === 'fs-usage') return { usedBytes: reply.usedBytes, totalBytes: reply.totalBytes, freeBytes: reply.freeBytes, fileBytes: reply.fileBytes };
    if (reply.type === 'fs-error') throw refusal(reply, '');
    throw unexpected(reply);
  };
  return agent.request((id) => [{ type: 'fs', id, op: 'usage' }], collect, BASE_TIMEOUT_MS, 'measuring the workspace');
}
