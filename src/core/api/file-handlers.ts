import { SandpitError } from '../../shared/api/errors';
import { detectMime } from '../files/mime';
import { listWorkspace, readWorkspaceFile, writeWorkspaceFile } from '../sessions/session-files';
import type { HandlerKit, Handlers } from './sandpit-api';

type FileMethods = 'files.write' | 'files.read' | 'files.list';

/** Whether bytes are text a model can read as-is (valid UTF-8, no NUL). */
function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  return Buffer.from(content.toString('utf8'), 'utf8').equals(content);
}

/** Files in /workspace: write (create or append), read (text or base64), list. */
export function fileHandlers(kit: HandlerKit): Pick<Handlers, FileMethods> {
  const { sessions, docker } = kit;
  return {
    'files.write': async ({ sessionId, path, content, encoding, append }, context) => {
      const id = await kit.target(sessionId, context);
      const bytes = encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
      return sessions.enqueue(id, async (runtime) => {
        let full = bytes;
        if (append) {
          const existing = await readWorkspaceFile(docker, runtime.containerId, path).catch((error: unknown) => {
            if (error instanceof SandpitError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT')) return undefined;
            throw error;
          });
          if (existing) full = Buffer.concat([existing.content, bytes]);
        }
        return writeWorkspaceFile(docker, runtime.containerId, path, full);
      });
    },
    'files.read': async ({ sessionId, path, maxBytes }, context) => {
      const id = await kit.target(sessionId, context);
      const file = await readWorkspaceFile(docker, sessions.get(id).containerId, path, maxBytes);
      sessions.touch(id);
      const text = isText(file.content);
      return {
        path: file.path,
        size: file.content.length,
        mime: detectMime(file.path, file.content.subarray(0, 64)),
        encoding: text ? 'utf8' : 'base64',
        content: text ? file.content.toString('utf8') : file.content.toString('base64'),
      };
    },
    'files.list': async ({ sessionId, path }, context) => {
      const id = await kit.target(sessionId, context);
      sessions.touch(id);
      return { path, entries: await listWorkspace(docker, sessions.get(id).containerId, path) };
    },
  };
}
