import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, readFile, realpath, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join, relative, resolve as resolvePath, sep } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { Limits } from '../../shared/domain/limits';
import type { Logger } from '../log';
import { isOwnerDead } from '../sandbox/instance-identity';
import type { InstanceIdentity } from '../sandbox/instance-identity';

/**
 * What /workspace is on:
 * - `disk-capped`: an ext4 file system of its own (a sparse image file on the data folder's disk, attached
 *   as a loop device and mounted by the engine): a full workspace is ENOSPC, memory is not touched, files
 *   survive restarts. Needs a local Linux engine and root (as the socket channel does).
 * - `disk`: a plain volume on the engine's disk (Docker Desktop, remote engines, rootless): files survive
 *   restarts and never use memory, but only single files are capped (the `fsize` ulimit), not the total.
 */
export type WorkspaceKind = 'disk-capped' | 'disk';

export interface WorkspaceVolume {
  /** Options of the engine's local volume driver (none for a plain volume). */
  driverOpts?: Record<string, string>;
  /** The disk image and its loop device (capped workspaces), for a kept session's record. */
  disk?: { image: string; device: string };
  /** Why the workspace cannot be mounted now (a kept disk whose loop device is gone), else undefined. */
  problem?(): Promise<string | undefined>;
  /** Undoes what `prepare` made, after the volume is removed. Safe to call more than once. */
  release(): Promise<void>;
}

export interface WorkspaceStorage {
  readonly kind: WorkspaceKind;
  prepare(sessionId: string, limits: Limits): Promise<WorkspaceVolume>;
  /**
   * A kept session's workspace again, from its record (none: a plain volume, which the engine keeps by name).
   * A disk that is not where Sandpit puts this session's disks, or a device that is not a loop device, is
   * refused (DENIED): nothing of it is ever detached or deleted.
   */
  reopen(disk: { image: string; device: string } | undefined, sessionId: string): WorkspaceVolume;
  /** Removes what the storage made for itself (not for a session), once no sandbox is being made with it. */
  close?(): Promise<void>;
}

const TOOL_TIMEOUT_MS = 30_000;
/** An instance's folder of workspace disks: its instance id. */
const INSTANCE_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SANDBOX_OWNER = '10001:10001';

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: TOOL_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error) reject(new SandpitError('INTERNAL', `${file} ${args[0] ?? ''} failed: ${(stderr || error.message).trim().slice(0, 500)}`));
      else resolve(stdout);
    });
  });
}

/** The image's size for a workspace of `mb` MiB: ext4 keeps about 9 MiB and 1.5 % for itself. */
export function imageBytes(mb: number): number {
  return Math.ceil(mb * 1.02 + 10) * 1024 * 1024;
}

/** A plain volume: disk-backed, total not capped. */
export const plainWorkspaces: WorkspaceStorage = {
  kind: 'disk',
  prepare: async () => ({ release: async () => undefined }),
  reopen: () => ({ release: async () => undefined }),
};

/**
 * One ext4 image per session in `<root>/<instanceId>/` (with an owner.json, so the reaper finds the images
 * of a dead instance), attached to a loop device the engine mounts as the workspace volume.
 */
export class LoopWorkspaces implements WorkspaceStorage {
  readonly kind = 'disk-capped';
  private readonly dir: string;
  /** The empty file system of each workspace size, made once (see `template`). */
  private readonly templates = new Map<number, Promise<string>>();
  /**
   * A workspace disk made ahead (a copy of the template, attached) for the first sandbox of the usual size: its copy
   * and `losetup` (two processes, 30–100 ms on a busy 2-core machine) happen while the core loads. Taken once.
   */
  private spare: { workspaceMb: number; disk: Promise<{ image: string; device: string } | undefined> } | undefined;
  private closed = false;
  private readonly token = randomBytes(4).toString('hex');

  constructor(
    private readonly root: string,
    private readonly identity: InstanceIdentity,
    private readonly log: Logger,
  ) {
    this.dir = join(root, identity.instanceId);
  }

  async prepare(sessionId: string, limits: Limits): Promise<WorkspaceVolume> {
    const image = join(this.dir, `${sessionId}.img`);
    let device: string | undefined;
    const release = async (): Promise<void> => {
      if (device) await run('losetup', ['-d', device]).catch((error: unknown) => this.log.warn('could not detach a workspace loop device', { device, error: String(error) }));
      device = undefined;
      await rm(image, { force: true });
    };
    const volume = (attached: string): WorkspaceVolume => ({ driverOpts: { type: 'ext4', device: attached, o: 'nosuid,nodev' }, disk: { image, device: attached }, release });
    const spare = await this.takeSpare(limits.workspaceMb);
    if (spare) {
      // The device follows its file: renamed, it is this session's disk (the reaper and kept records name it so).
      try {
        await rename(spare.image, image);
        device = spare.device;
        return volume(device);
      } catch (error) {
        this.log.warn('could not take the workspace disk made ahead; making one', { error: String(error) });
        await this.releaseDisk(spare);
      }
    }
    const template = await this.template(limits.workspaceMb);
    try {
      // A copy of the empty file system (holes stay holes): one process instead of making one each time.
      await run('cp', ['--sparse=always', template, image]);
      device = await this.attach(image);
      return volume(device);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Attaches an image to a free loop device. */
  private async attach(image: string): Promise<string> {
    const device = (await run('losetup', ['--find', '--show', image])).trim();
    if (!device.startsWith('/dev/loop')) throw new SandpitError('INTERNAL', `losetup gave "${device}", not a loop device.`);
    return device;
  }

  /** The disk made ahead for this size (waiting for it when it is still being made), once; else undefined. */
  private async takeSpare(workspaceMb: number): Promise<{ image: string; device: string } | undefined> {
    const spare = this.spare;
    if (!spare || spare.workspaceMb !== workspaceMb) return undefined;
    this.spare = undefined;
    return spare.disk;
  }

  /** Detaches and removes a disk no session took. Never throws. */
  private async releaseDisk(disk: { image: string; device: string }): Promise<void> {
    await run('losetup', ['-d', disk.device]).catch((error: unknown) => this.log.warn('could not detach a workspace loop device', { device: disk.device, error: String(error) }));
    await rm(disk.image, { force: true }).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = await this.spare?.disk;
    this.spare = undefined;
    if (spare) await this.releaseDisk(spare);
    const made = [...this.templates.values()];
    this.templates.clear();
    for (const template of made) {
      const path = await template.catch(() => undefined);
      if (path) await rm(path, { force: true });
    }
  }

  /**
   * Starts making the empty file system of this size now, and from it the first sandbox's disk (that sandbox then
   * finds both made); never throws.
   */
  prewarm(workspaceMb: number): void {
    if (this.closed || this.spare) return;
    const disk = (async (): Promise<{ image: string; device: string } | undefined> => {
      const template = await this.template(workspaceMb);
      const image = join(this.dir, `spare-${this.token}.img`);
      await run('cp', ['--sparse=always', template, image]);
      try {
        return { image, device: await this.attach(image) };
      } catch (error) {
        await rm(image, { force: true });
        throw error;
      }
    })().catch((error: unknown) => {
      this.log.warn('could not make the empty workspace file system ahead', { workspaceMb, error: String(error) });
      return undefined;
    });
    this.spare = { workspaceMb, disk };
  }

  /**
   * An empty workspace file system of this size, made once per size for this instance (`truncate`, `mkfs.ext4`
   * and `debugfs` took three processes and up to a quarter of a second per sandbox on a busy machine) in its
   * own folder, where the reaper finds it with the instance's images. Sessions get copies; none writes to it.
   */
  private template(workspaceMb: number): Promise<string> {
    let made = this.templates.get(workspaceMb);
    if (!made) {
      made = (async () => {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        await writeFile(join(this.dir, 'owner.json'), JSON.stringify(this.identity), { mode: 0o600 });
        // Named for this storage object: another one of the same instance (a change of engine) has its own.
        const path = join(this.dir, `empty-${workspaceMb}mb-${this.token}.ext4`);
        const partial = `${path}.partial`;
        await writeFile(partial, '', { mode: 0o600 });
        await truncate(partial, imageBytes(workspaceMb));
        await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=4', '-E', `root_owner=${SANDBOX_OWNER},lazy_itable_init=1`, partial]);
        // An empty workspace: no lost+found for the person to wonder about.
        await run('debugfs', ['-w', '-R', 'rmdir lost+found', partial]);
        await rename(partial, path);
        return path;
      })();
      // A failure is not remembered: the next sandbox tries again.
      made.catch(() => this.templates.delete(workspaceMb));
      this.templates.set(workspaceMb, made);
    }
    return made;
  }

  /**
   * A kept workspace: its loop device stays attached while Sandpit is away (the engine mounts the volume from
   * it). The device is detached only while it still backs this image, so a device number taken by another
   * image since (the machine restarted) is never touched — and never mounted as this session's workspace.
   */
  reopen(disk: { image: string; device: string } | undefined, sessionId: string): WorkspaceVolume {
    if (!disk) return { release: async () => undefined };
    const { image, device } = disk;
    const where = relative(resolvePath(this.root), resolvePath(image)).split(sep);
    if (where.length !== 2 || !INSTANCE_DIR.test(where[0] ?? '') || where[1] !== `${sessionId}.img` || !/^\/dev\/loop[0-9]+$/.test(device)) {
      throw new SandpitError('DENIED', `The record of kept session ${sessionId} names a workspace disk (${image} on ${device}) that is not where Sandpit keeps that session's disk (${join(this.root, '<instance>', `${sessionId}.img`)} on a loop device): it is not used, and that file is left alone.`, { reason: 'foreign-disk' });
    }
    // The folders on the way are Sandpit's own, not links to somewhere else: only then is the image ever deleted.
    const ours = async (): Promise<boolean> => {
      const [root, real] = await Promise.all([realpath(this.root).catch(() => undefined), realpath(image).catch(() => undefined)]);
      return root !== undefined && real !== undefined && real === join(root, where[0] ?? '', where[1] ?? '');
    };
    const backs = async (): Promise<boolean> => (await backingFile(device)) === (await realpath(image).catch(() => image));
    return {
      disk,
      problem: async () =>
        (await backs()) ? undefined : `Its workspace disk (${image}) is no longer attached as ${device} (the machine restarted?): its files are in that image, but this session cannot mount it again. Stop it and start a new one.`,
      release: async () => {
        if (!(await ours())) {
          this.log.warn('a kept workspace disk is not in Sandpit\'s workspaces folder any more; it is left alone', { image });
          return;
        }
        if (await backs()) await run('losetup', ['-d', device]).catch((error: unknown) => this.log.warn('could not detach a workspace loop device', { device, error: String(error) }));
        await rm(image, { force: true });
      },
    };
  }
}

/** The file a loop device is attached to (from sysfs), undefined when it is attached to none. */
async function backingFile(device: string): Promise<string | undefined> {
  const name = device.replace(/^\/dev\//, '');
  if (!/^loop[0-9]+$/.test(name)) return undefined;
  return (await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => undefined))?.trim();
}

/** Whether `tool` is an executable file in one of the PATH's folders (looked up here: no `which` process each). */
async function onPath(tool: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/'))) {
    try {
      await access(join(dir, tool), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** Whether this machine can give capped disk workspaces: root, the tools, loop devices, a local engine. */
export async function canLoopMount(local: boolean): Promise<boolean> {
  if (!local || process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0) return false;
  try {
    await access('/dev/loop-control', constants.R_OK | constants.W_OK);
  } catch {
    return false;
  }
  const found = await Promise.all(['mkfs.ext4', 'debugfs', 'losetup', 'cp'].map(onPath));
  return found.every(Boolean);
}

/** Whether the instance whose images are in `dir` (its owner.json) is dead; undefined when the folder is not ours. */
async function ownerIsDead(dir: string, self: InstanceIdentity): Promise<boolean | undefined> {
  try {
    const owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as InstanceIdentity;
    if (owner.instanceId === self.instanceId) return false;
    return isOwnerDead({ host: owner.host, pid: String(owner.pid), start: owner.processStart, instance: owner.instanceId }, self);
  } catch {
    return undefined;
  }
}

/** Loop devices attached now, with their backing files (from sysfs). */
export async function attachedLoops(): Promise<Array<{ device: string; file: string }>> {
  const loops: Array<{ device: string; file: string }> = [];
  for (const name of (await readdir('/sys/block').catch(() => [] as string[])).filter((n) => n.startsWith('loop'))) {
    const file = await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => undefined);
    if (file) loops.push({ device: `/dev/${name}`, file: file.trim() });
  }
  return loops;
}

/** A session's disk, or a disk made ahead that no session took (`spare-<token>.img`). */
const IMAGE_PATH = /\/workspaces\/([^/]+)\/((?:ses|spare)-[a-z0-9]+)\.img$/;

/**
 * What dead instances left of their workspaces (their containers and volumes are gone): loop devices
 * detached — also those of an instance with another data folder, found by their backing file — and the
 * image folders under `root` removed. The disks of kept sessions (`isKept`) stay, attached, with their
 * folder. Returns the folders and devices it cleaned.
 */
export async function reapWorkspaceImages(root: string, self: InstanceIdentity, log: Logger, isKept: (sessionId: string) => Promise<boolean> = async () => false): Promise<string[]> {
  const cleaned: string[] = [];
  for (const loop of await attachedLoops()) {
    const match = IMAGE_PATH.exec(loop.file);
    const name = match?.[2] ?? '';
    if (!match || match[1] === self.instanceId || (name.startsWith('ses-') && (await isKept(name)))) continue;
    const dir = loop.file.slice(0, loop.file.lastIndexOf('/'));
    if ((await ownerIsDead(dir, self)) !== true) continue;
    try {
      await run('losetup', ['-d', loop.device]);
      await rm(loop.file, { force: true });
      cleaned.push(loop.device);
    } catch (error) {
      log.warn('could not detach a leftover workspace loop device', { device: loop.device, error: String(error) });
    }
  }
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const dir = join(root, name);
    if (name === self.instanceId || (await ownerIsDead(dir, self)) !== true) continue;
    const kept: string[] = [];
    for (const file of await readdir(dir).catch(() => [] as string[])) {
      const id = /^(ses-[a-z0-9]+)\.img$/.exec(file)?.[1];
      if (id && (await isKept(id))) kept.push(file);
    }
    if (kept.length === 0) {
      await rm(dir, { recursive: true, force: true });
      cleaned.push(dir);
      continue;
    }
    // The folder stays for its kept disks (and its owner.json, so it is looked at again); the rest goes.
    for (const file of await readdir(dir).catch(() => [] as string[])) {
      if (kept.includes(file) || file === 'owner.json') continue;
      await rm(join(dir, file), { recursive: true, force: true });
      cleaned.push(join(dir, file));
    }
  }
  return cleaned;
}
