import type { Stats } from 'node:fs';
import { chmod, chown, lstat, mkdir, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFileAtomic } from './review-files';
import { hostStamp, stamp } from './review-manifest';
import type { ReviewManifest } from './review-manifest';

const COPIES_AT_ONCE = 8;

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
  // Without root the copy cannot be given to the sandbox user: it keeps the person's group (Sandpit is in it, or
  // the folder's group could not be kept) and modes, so the sandbox, which joins that group, changes what they allow.
  const ids = (info: Stats): { uid: number; gid: number } => owner ?? { uid: -1, gid: info.gid };
  const makeDir = async (to: string, info: Stats): Promise<void> => {
    await mkdir(to, { recursive: true, mode: 0o700 });
    await chown(to, ids(info).uid, ids(info).gid).catch(() => undefined);
    // the exact mode (mkdir's is cut by the umask)
    await chmod(to, info.mode & 0o7777);
  };
  await makeDir(filesDir, rootInfo);
  const copyFile = async (childRel: string, info: Stats): Promise<void> => {
    const to = join(filesDir, childRel);
    const copied = await copyFileAtomic(join(hostPath, childRel), to, {
      mode: info.mode,
      owner: ids(info),
      sync: false,
    });
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
  };
  const walk = async (rel: string): Promise<void> => {
    const files: Array<[string, Stats]> = [];
    for await (const entry of await opendir(rel === '' ? hostPath : join(hostPath, rel))) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const info = await lstat(join(hostPath, childRel));
      if (info.isDirectory()) {
        await makeDir(join(filesDir, childRel), info);
        await walk(childRel);
      } else if (info.isFile()) files.push([childRel, info]);
    }
    // a few files of a folder at a time
    for (let i = 0; i < files.length; i += COPIES_AT_ONCE)
      await Promise.all(files.slice(i, i + COPIES_AT_ONCE).map(([childRel, info]) => copyFile(childRel, info)));
  };
  await walk('');
  return manifest;
}
