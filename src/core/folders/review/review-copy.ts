import { chown, lstat, mkdir, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFileAtomic } from './review-files';
import { hostStamp, stamp } from './review-manifest';
import type { ReviewManifest } from './review-manifest';

/** Who owns the layer's files: the sandbox user, so code in the sandbox may change them (when Sandpit may chown). */
export interface LayerOwner {
  uid: number;
  gid: number;
}

/**
 * Copies the person's folder into the layer's `files` folder (the copy backend): regular files and folders
 * only, modes and times kept, each file hashed as it is read (the record of what the session saw). Links,
 * FIFOs, devices and sockets of the person's folder are not copied: they never reach the sandbox.
 */
export async function copyIntoLayer(
  hostPath: string,
  filesDir: string,
  owner: LayerOwner | undefined,
): Promise<ReviewManifest> {
  const manifest: ReviewManifest = {
    version: 2,
    hostPath,
    backend: 'copy',
    sharedAt: new Date().toISOString(),
    files: {},
  };
  const rootInfo = await lstat(hostPath);
  await mkdir(filesDir, { recursive: true, mode: rootInfo.mode & 0o7777 });
  if (owner) await chown(filesDir, owner.uid, owner.gid).catch(() => undefined);
  const walk = async (rel: string): Promise<void> => {
    const dir = await opendir(rel === '' ? hostPath : join(hostPath, rel));
    for await (const entry of dir) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const from = join(hostPath, childRel);
      const to = join(filesDir, childRel);
      const info = await lstat(from);
      if (info.isDirectory()) {
        await mkdir(to, { mode: info.mode & 0o7777 });
        if (owner) await chown(to, owner.uid, owner.gid).catch(() => undefined);
        await walk(childRel);
      } else if (info.isFile()) {
        const copied = await copyFileAtomic(from, to, { mode: info.mode, ...(owner ? { owner } : {}), sync: false });
        const layerInfo = await lstat(to);
        manifest.files[childRel] = {
          size: copied.size,
          sha256: copied.sha256,
          text: copied.text,
          mode: copied.source.mode & 0o7777,
          uid: copied.source.uid,
          gid: copied.source.gid,
          host: hostStamp(copied.source),
          layer: stamp(layerInfo),
        };
      }
    }
  };
  await walk('');
  return manifest;
}
