import { chown, lstat, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toErrorBody } from '../../shared/api/errors';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { isWhiteout, opaqueFolders } from '../folders/review/overlay-upper';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { newId } from '../util/ids';
import { SANDBOX_UID, hardenedContainerSpec } from './container-profile';
import type { DockerClient } from './docker-client';
import { LABEL, sessionLabels } from './labels';
import { overlayDriverOpts } from './overlay-volumes';

const PROBE_TIMEOUT_MS = 60_000;

export interface OverlayProbeInput {
  docker: DockerClient;
  identity: InstanceIdentity;
  image: string;
  /** A folder of Sandpit's data folder for the probe's own layers (removed after). */
  scratch: string;
  /** The person's folder: the probe mounts an overlay over it too (read-only, nothing is written), to see that its file system takes one. */
  hostPath: string;
}

/**
 * Whether this engine mounts an overlay as the review backend needs it, tried for real: a hardened container
 * (the sandbox user, no network) writes a file, deletes one and deletes and makes a folder again in an overlay
 * over a folder of the probe's own, and lists one over the person's folder (mounted read-only). Afterwards the
 * probe's lower folder must be as it was, its upper folder must hold the new file, a whiteout and an opaque
 * folder Sandpit can read. Undefined when all of that holds; else what went wrong, in plain words.
 */
export async function probeOverlay(input: OverlayProbeInput): Promise<string | undefined> {
  const { docker, scratch } = input;
  const id = newId('ov', 6);
  const dirs = {
    lower: join(scratch, 'lower'),
    upper: join(scratch, 'upper'),
    work: join(scratch, 'work'),
    upperB: join(scratch, 'upper-b'),
    workB: join(scratch, 'work-b'),
  };
  const volumes = { a: `sandpit-probe-${id}-a`, b: `sandpit-probe-${id}-b` };
  const labels = sessionLabels(input.identity, 'overlay-probe', { [LABEL.role]: 'probe' });
  try {
    for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true, mode: 0o755 });
    await mkdir(join(dirs.lower, 'folder'));
    await writeFile(join(dirs.lower, 'keep.txt'), 'keep\n');
    await writeFile(join(dirs.lower, 'gone.txt'), 'gone\n');
    await writeFile(join(dirs.lower, 'folder', 'inside.txt'), 'inside\n');
    for (const path of [dirs.lower, join(dirs.lower, 'folder'), dirs.upper])
      await chown(path, SANDBOX_UID, SANDBOX_UID);
    await docker.createVolume({
      name: volumes.a,
      labels,
      driverOpts: overlayDriverOpts({
        hostPath: dirs.lower,
        layerPath: dirs.upper,
        overlayWorkPath: dirs.work,
        mountPath: '/a',
        readOnly: false,
      }),
    });
    await docker.createVolume({
      name: volumes.b,
      labels,
      driverOpts: overlayDriverOpts({
        hostPath: input.hostPath,
        layerPath: dirs.upperB,
        overlayWorkPath: dirs.workB,
        mountPath: '/b',
        readOnly: false,
      }),
    });
    const spec = hardenedContainerSpec({
      name: `sandpit-probe-${id}`,
      image: input.image,
      limits: { ...DEFAULT_LIMITS, memoryMb: 64, pids: 16 },
      labels,
      volumes: { [volumes.a]: '/probe/a' },
      readOnlyVolumes: { [volumes.b]: '/probe/b' },
      cmd: [
        'sh',
        '-c',
        'echo new > /probe/a/new.txt && rm /probe/a/gone.txt && rm -r /probe/a/folder && mkdir /probe/a/folder && ls /probe/b > /dev/null',
      ],
    });
    spec.openStdin = false;
    const run = await docker.runToCompletion(spec, { timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 16 * 1024 });
    if (run.timedOut) return `a container with an overlay did not finish within ${PROBE_TIMEOUT_MS / 1000} s`;
    if (run.exitCode !== 0)
      return `a container could not use an overlay (exit ${run.exitCode}: ${run.stderr.trim().slice(0, 300)})`;
    return await checkProbe(dirs.lower, dirs.upper);
  } catch (error) {
    return `the engine could not mount an overlay: ${toErrorBody(error)
      .message.replace(/^Docker failed to [^:]*: /, '')
      .slice(0, 400)}`;
  } finally {
    for (const name of Object.values(volumes)) await docker.removeVolume(name).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** What the probe's overlay left: the lower folder untouched, and in the upper one what Sandpit reads. */
async function checkProbe(lower: string, upper: string): Promise<string | undefined> {
  const lowerNow = (await readdir(lower)).sort().join(',');
  if (
    lowerNow !== 'folder,gone.txt,keep.txt' ||
    (await readFile(join(lower, 'folder', 'inside.txt'), 'utf8')) !== 'inside\n'
  )
    return `a write through the overlay reached the folder below it (it now holds ${lowerNow})`;
  const added = await readFile(join(upper, 'new.txt'), 'utf8').catch(() => undefined);
  if (added !== 'new\n') return 'a file written through the overlay is not in its upper folder';
  const gone = await lstat(join(upper, 'gone.txt')).catch(() => undefined);
  if (!gone || !isWhiteout(gone)) return 'a deletion through the overlay did not leave the whiteout Sandpit reads';
  const opaque = await opaqueFolders(upper, ['folder']).catch((error: unknown) => toErrorBody(error).message);
  if (typeof opaque === 'string') return `Sandpit cannot read the overlay's marks of folders made again (${opaque})`;
  if (!opaque.has('folder'))
    return 'a folder deleted and made again through the overlay is not marked as Sandpit reads it';
  return undefined;
}
