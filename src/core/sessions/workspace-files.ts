import { SandpitError } from '../../shared/api/errors';
import type { FileEntry } from '../../shared/domain/artifact';
import { fromWorkspacePath } from '../files/safe-path';
import { packFiles, parseTar } from '../files/safe-tar';
import type { Sandbox } from './sandbox-backend';
import { WORKSPACE_DIR } from './sandbox-paths';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;
const MAX_LIST_ENTRIES = 5_000;

/** Writes one file into /workspace through a tar we build ourselves (regular file, validated name). */
export async function writeWorkspaceFile(sandbox: Sandbox, path: string, content: Buffer): Promise<{ path: string; size: number }> {
  const relative = fromWorkspacePath(path);
  const tar = await packFiles([{ path: relative, content }], { maxFileBytes: MAX_UPLOAD_BYTES, maxTotalBytes: MAX_UPLOAD_BYTES });
  await sandbox.putArchive(WORKSPACE_DIR, tar);
  return { path: relative, size: content.length };
}

/** Reads one regular file from /workspace; links, devices and directories are refused. */
export async function readWorkspaceFile(sandbox: Sandbox, path: string, maxBytes = MAX_DOWNLOAD_BYTES): Promise<{ path: string; content: Buffer }> {
  const relative = fromWorkspacePath(path);
  const stream = await sandbox.getArchive(`${WORKSPACE_DIR}/${relative}`);
  const files = await parseTar(stream, { maxFileBytes: maxBytes, maxTotalBytes: maxBytes, maxEntries: 1 });
  const file = files[0];
  if (!file || files.length !== 1) throw new SandpitError('INVALID_INPUT', `"${relative}" is not a regular file.`);
  return { path: relative, content: file.content };
}

/** Lists one directory level of /workspace (as the sandbox user, with `find`, no shell). */
export async function listWorkspace(sandbox: Sandbox, path: string): Promise<FileEntry[]> {
  const relative = fromWorkspacePath(path, { allowRoot: true });
  const dir = relative ? `${WORKSPACE_DIR}/${relative}` : WORKSPACE_DIR;
  const r = await sandbox.exec(['find', dir, '-mindepth', '1', '-maxdepth', '1', '-printf', '%y\\t%s\\t%T@\\t%P\\0'], {
    timeoutMs: 15_000,
    maxOutputBytes: 4 * 1024 * 1024,
  });
  if (r.exitCode !== 0) {
    throw new SandpitError('NOT_FOUND', `Cannot list "${relative || '/workspace'}": ${r.stderr.trim() || 'no such directory'}`);
  }
  const entries: FileEntry[] = [];
  for (const record of r.stdout.split('\0')) {
    if (!record) continue;
    const [kind, size, mtime, name] = record.split('\t');
    if (!name) continue;
    entries.push({
      path: relative ? `${relative}/${name}` : name,
      type: kind === 'f' ? 'file' : kind === 'd' ? 'directory' : kind === 'l' ? 'symlink' : 'other',
      size: Number(size) || 0,
      modifiedAt: new Date(Number(mtime) * 1000).toISOString(),
    });
    if (entries.length >= MAX_LIST_ENTRIES) break;
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}
