import { detectMime } from '../files/mime';
import { fromWorkspacePath } from '../files/safe-path';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type FileMethods = 'files.write' | 'files.read' | 'files.list';

/** Whether bytes are text a model can read as-is (valid UTF-8, no NUL). */
function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  return Buffer.from(content.toString('utf8'), 'utf8').equals(content);
}

/** Files in /workspace: write (create or append), read (text or base64), list — each a job on the session's queue. */
export function fileHandlers(kit: HandlerKit): Pick<Handlers, FileMethods> {
  return {
    'files.write': async ({ sessionId, path, content, encoding, append }, context) => {
      const relative = fromWorkspacePath(path);
      const bytes = encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
      return (await kit.target(sessionId, context)).writeFile(relative, bytes, append);
    },
    'files.read': async ({ sessionId, path, maxBytes }, context) => {
      const relative = fromWorkspacePath(path);
      const file = await (await kit.target(sessionId, context)).readFile(relative, maxBytes);
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
      const relative = fromWorkspacePath(path, { allowRoot: true });
      return { path: relative, entries: await (await kit.target(sessionId, context)).listFiles(relative) };
    },
  };
}
