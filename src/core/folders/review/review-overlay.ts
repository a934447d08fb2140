import { chmod, chown, lstat, mkdir, opendir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostStamp } from './review-manifest';
import type { ReviewManifest } from './review-manifest';

/** Characters an overlay mount's options cannot carry in a folder's path (they separate options and layers). */
const UNMOUNTABLE = /[,:\\\p{Cc}]/u;

/** Why an overlay mount cannot name this path, in plain words; undefined when it can. */
export function unmountablePath(path: string): string | undefined {
  return UNMOUNTABLE.test(path)
    ? `the path ${JSON.stringify(path)} holds a comma, a colon, a backslash or a control character, which an overlay mount cannot name`
    : undefined;
}

/**
 * Makes an overlay layer (the overlay backend): an empty upper folder, with the person's folder's own mode
 * and owner (the folder the sandbox sees takes them from it), and overlayfs's work folder; and the record of
 * the person's folder: each regular file's size, mode, owner and stat, read with lstat only (no file is read:
 * a hash is taken the first time a change needs it).
 */
export async function makeOverlayLayer(hostPath: string, dir: string): Promise<ReviewManifest> {
  const rootInfo = await lstat(hostPath);
  const upper = join(dir, 'upper');
  await mkdir(upper, { mode: 0o700 });
  if (process.getuid?.() === 0) await chown(upper, rootInfo.uid, rootInfo.gid);
  await chmod(upper, rootInfo.mode & 0o7777);
  await mkdir(join(dir, 'work'), { mode: 0o700 });
  const manifest: ReviewManifest = {
    version: 2,
    hostPath,
    backend: 'overlay',
    sharedAt: new Date().toISOString(),
    files: {},
  };
  const walk = async (rel: string): Promise<void> => {
    const names: string[] = [];
    for await (const entry of await opendir(rel === '' ? hostPath : join(hostPath, rel)))
      names.push(rel === '' ? entry.name : `${rel}/${entry.name}`);
    const infos = await Promise.all(names.map((childRel) => lstat(join(hostPath, childRel))));
    for (let i = 0; i < names.length; i++) {
      const info = infos[i]!;
      if (info.isDirectory()) await walk(names[i]!);
      else if (info.isFile())
        manifest.files[names[i]!] = {
          size: info.size,
          mode: info.mode & 0o7777,
          uid: info.uid,
          gid: info.gid,
          host: hostStamp(info),
        };
    }
  };
  await walk('');
  return manifest;
}

/** `\040`-style escapes of /proc/self/mountinfo, undone. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * Where the overlay whose upper layer is `upperDir` is mounted on this computer (the engine mounts it while a
 * container uses it), from /proc/self/mountinfo; undefined when it is not mounted where Sandpit can see it.
 */
export async function overlayMountOf(upperDir: string): Promise<string | undefined> {
  const text = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const [fstype, , superOptions] = after.split(' ');
    if (fstype !== 'overlay' || !superOptions) continue;
    if (!unescapeMountField(superOptions).split(',').includes(`upperdir=${upperDir}`)) continue;
    const mountPoint = before.split(' ')[4];
    if (mountPoint) return unescapeMountField(mountPoint);
  }
  return undefined;
}
