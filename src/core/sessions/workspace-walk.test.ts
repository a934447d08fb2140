import { describe, expect, it } from 'vitest';
import type { WorkspaceAgent } from './workspace-files';
import { walkWorkspace } from './workspace-walk';

/** `locked`: what the sandbox user may not read (chmod 000): listed, but reading or listing it is DENIED. */
type Node = { file: string; locked?: true } | { link: string } | { dir: Record<string, Node>; locked?: true } | 'fifo';

/** An agent over an in-memory tree that answers list and read as the real one does (links listed, never followed). */
function fakeAgent(root: Record<string, Node>): WorkspaceAgent & { reads: string[] } {
  const reads: string[] = [];
  const at = (path: string): Node | undefined => {
    let node: Node = { dir: root };
    for (const part of path.split('/').filter(Boolean)) {
      if (typeof node === 'string' || !('dir' in node)) return undefined;
      const next: Node | undefined = node.dir[part];
      if (!next) return undefined;
      node = next;
    }
    return node;
  };
  return {
    reads,
    request: async (build, collect) => {
      const [msg] = build('q1') as Array<{ op: string; path: string }>;
      const node = at(msg!.path);
      let out: unknown;
      const feed = (reply: Record<string, unknown>): void => {
        const r = collect({ id: 'q1', ...reply } as never);
        if (r !== undefined) out = r;
      };
      if (node && typeof node !== 'string' && 'locked' in node) {
        feed({ type: 'fs-error', code: 'DENIED', message: `"${msg!.path}": permission denied.` });
      } else if (msg!.op === 'list' && node && typeof node !== 'string' && 'dir' in node) {
        const entries = Object.entries(node.dir).map(([name, n]) => ({
          name,
          type: typeof n === 'string' ? 'other' : 'dir' in n ? 'directory' : 'link' in n ? 'symlink' : 'file',
          size: typeof n !== 'string' && 'file' in n ? n.file.length : 0,
          mtime: 0,
        }));
        feed({ type: 'fs-list', entries, truncated: false });
      } else if (msg!.op === 'read' && node && typeof node !== 'string' && 'file' in node) {
        reads.push(msg!.path);
        feed({ type: 'fs-data', data: Buffer.from(node.file).toString('base64') });
        feed({ type: 'fs-done', size: node.file.length });
      } else {
        feed({ type: 'fs-error', code: 'NOT_FOUND', message: 'no' });
      }
      return out as never;
    },
  };
}

const CAPS = { maxFiles: 100, maxBytes: 1_000, maxFileBytes: 500 };

describe('walkWorkspace', () => {
  it('reads every regular file folder by folder, leaves links and special files out and names them', async () => {
    const agent = fakeAgent({ 'a.txt': { file: 'A' }, sub: { dir: { 'b.txt': { file: 'BB' }, out: { link: '/etc' } } }, passwd: { link: '/etc/passwd' }, pipe: 'fifo' });
    const got: Record<string, string> = {};
    const walk = await walkWorkspace(agent, async (path, content) => void (got[path] = content.toString()), CAPS);
    expect(got).toEqual({ 'a.txt': 'A', 'sub/b.txt': 'BB' });
    expect(walk).toEqual({ files: 2, bytes: 3, skipped: ['passwd', 'pipe', 'sub/out'], leftOut: [] });
    expect(agent.reads.sort()).toEqual(['a.txt', 'sub/b.txt']);
  });

  it('never walks a folder it is told to leave out (a shared folder), and names it', async () => {
    const agent = fakeAgent({ 'a.txt': { file: 'A' }, shared: { dir: { docs: { dir: { 'private.txt': { file: 'the person’s' } } }, 'own.txt': { file: 'O' } } } });
    const got: Record<string, string> = {};
    const walk = await walkWorkspace(agent, async (path, content) => void (got[path] = content.toString()), { ...CAPS, leaveOut: ['shared/docs'] });
    expect(got).toEqual({ 'a.txt': 'A', 'shared/own.txt': 'O' });
    expect(walk.leftOut).toEqual(['shared/docs']);
    expect(agent.reads.some((path) => path.startsWith('shared/docs'))).toBe(false);
  });

  it('leaves out and names what the sandbox user cannot read and names no path may have, instead of failing', async () => {
    const agent = fakeAgent({
      'a.txt': { file: 'A' },
      'locked.txt': { file: 'secret', locked: true },
      'locked-dir': { dir: { 'x.txt': { file: 'X' } }, locked: true },
      'line\nbreak.txt': { file: 'odd' },
      'back\\slash': { dir: { 'y.txt': { file: 'Y' } } },
    });
    const got: Record<string, string> = {};
    const walk = await walkWorkspace(agent, async (path, content) => void (got[path] = content.toString()), CAPS);
    expect(got).toEqual({ 'a.txt': 'A' });
    expect([...walk.skipped].sort()).toEqual(['back\\\\slash', 'line\\nbreak.txt', 'locked-dir', 'locked.txt']);
    expect(agent.reads.sort()).toEqual(['a.txt']);
  });

  it('still fails when the workspace itself cannot be listed', async () => {
    const locked: WorkspaceAgent = { request: async (_build, collect) => collect({ type: 'fs-error', id: 'q1', code: 'DENIED', message: 'permission denied.' } as never) as never };
    await expect(walkWorkspace(locked, async () => undefined, CAPS)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: '/workspace: permission denied.' });
  });

  it('refuses a file over the per-file cap, saying which and how large, before reading it', async () => {
    const agent = fakeAgent({ 'big.bin': { file: 'x'.repeat(600) } });
    await expect(walkWorkspace(agent, async () => undefined, CAPS)).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: '/workspace/big.bin is 600 bytes: a snapshot takes files of up to 500 bytes. Delete or split it, then try again.',
    });
    expect(agent.reads).toEqual([]);
  });

  it('refuses a workspace over the total and the file-count caps', async () => {
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, { file: 'x'.repeat(300) }]));
    await expect(walkWorkspace(fakeAgent(many), async () => undefined, CAPS)).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: "The workspace's files add up to more than 1000 bytes: a snapshot takes at most that much.",
    });
    await expect(walkWorkspace(fakeAgent(many), async () => undefined, { ...CAPS, maxFiles: 2 })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'The workspace holds more than 2 files: a snapshot takes at most that many.',
    });
  });
});
