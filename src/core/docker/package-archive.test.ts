import { pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { walkTar } from '../files/tar-walk';
import { cleanPackageArchive } from './package-archive';

type Entry = Parameters<ReturnType<typeof pack>['entry']>[0] & { body?: string };

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => p.on('end', () => resolve()));
  for (const { body, ...header } of entries) p.entry(header, body ?? '');
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

async function entriesOf(tar: Buffer): Promise<Array<{ name: string; type: string | null; mode: number; uid: number; linkname?: string | null }>> {
  const out: Array<{ name: string; type: string | null; mode: number; uid: number; linkname?: string | null }> = [];
  await walkTar(tar, { timeoutMs: 5_000, maxArchiveBytes: 10_000_000 }, async (h, body) => {
    out.push({ name: h.name, type: h.type, mode: h.mode ?? 0, uid: h.uid ?? -1, ...(h.type === 'symlink' ? { linkname: h.linkname } : {}) });
    body.resume();
    await new Promise<void>((r) => body.on('end', () => r()));
  });
  return out;
}

describe('cleanPackageArchive', () => {
  it('keeps folders, files and inside links, owned by the sandbox user, without set-id bits; drops links out and hard links', async () => {
    const source = await tarOf([
      { name: 'packages/', type: 'directory', mode: 0o755 },
      { name: 'packages/demo/', type: 'directory', mode: 0o777 },
      { name: 'packages/demo/__init__.py', type: 'file', mode: 0o4755, uid: 0, body: 'VALUE = 42\n' },
      { name: 'packages/bin/', type: 'directory', mode: 0o755 },
      { name: 'packages/bin/demo', type: 'symlink', linkname: '../demo/__init__.py' },
      { name: 'packages/bin/passwd', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'packages/bin/up', type: 'symlink', linkname: '../../../etc/hostname' },
      { name: 'packages/demo/hard', type: 'link', linkname: 'packages/demo/__init__.py' },
    ]);
    const clean = await cleanPackageArchive(source, 1_000_000, 5_000);
    expect(clean?.bytes).toBe(11);
    expect(await entriesOf(clean!.tar)).toEqual([
      { name: 'demo/', type: 'directory', mode: 0o755, uid: 10_001 },
      { name: 'demo/__init__.py', type: 'file', mode: 0o755, uid: 10_001 },
      { name: 'bin/', type: 'directory', mode: 0o755, uid: 10_001 },
      { name: 'bin/demo', type: 'symlink', mode: 0o777, uid: 10_001, linkname: '../demo/__init__.py' },
    ]);
  });

  it('is nothing for an empty store, refuses ".." names and caps the size', async () => {
    expect(await cleanPackageArchive(await tarOf([{ name: 'packages/', type: 'directory' }]), 1_000, 5_000)).toBeUndefined();
    await expect(cleanPackageArchive(await tarOf([{ name: 'packages/../x', type: 'file', body: 'x' }]), 1_000, 5_000)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(cleanPackageArchive(await tarOf([{ name: 'packages/big', type: 'file', body: 'x'.repeat(2_000) }]), 1_000, 5_000)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });
});
