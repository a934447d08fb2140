import { basename, dirname } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import type { DockerClient } from './docker-client';

/** A review folder whose layer is an overlay (its upper and work folders over the person's folder). */
export type OverlayFolder = SandboxFolder & { layerPath: string; overlayWorkPath: string };

export function isOverlayFolder(folder: SandboxFolder): folder is OverlayFolder {
  return folder.layerPath !== undefined && folder.overlayWorkPath !== undefined;
}

/** The engine volume of an overlay layer: named after the layer (`sandpit-review-rv-…`). */
export function overlayVolumeName(folder: OverlayFolder): string {
  return `sandpit-review-${basename(dirname(folder.layerPath))}`;
}

/**
 * The local driver's options that mount the overlay: the person's folder (already checked, its real path) the
 * read-only lower layer, the session's folders above it. No device or set-id file works through it; renamed
 * folders are copied (no redirects), a changed file is copied whole (no metadata-only copies), no index: what
 * the upper folder holds is what Sandpit reads (files, whiteouts, opaque folders) and nothing else.
 */
export function overlayDriverOpts(folder: OverlayFolder): Record<string, string> {
  return {
    type: 'overlay',
    device: 'overlay',
    o: [
      'nodev',
      'nosuid',
      `lowerdir=${folder.hostPath}`,
      `upperdir=${folder.layerPath}`,
      `workdir=${folder.overlayWorkPath}`,
      'redirect_dir=off',
      'metacopy=off',
      'index=off',
      'xino=off',
    ].join(','),
  };
}

/**
 * Makes the overlay's volume, or checks the one there: an existing volume of that name must mount exactly
 * this overlay (a volume left with other options is refused, never used).
 */
export async function ensureOverlayVolume(
  docker: DockerClient,
  folder: OverlayFolder,
  labels: Record<string, string>,
): Promise<string> {
  const name = overlayVolumeName(folder);
  const found = await docker.inspectVolume(name);
  if (!found) {
    await docker.createVolume({ name, labels, driverOpts: overlayDriverOpts(folder) });
    return name;
  }
  assertOverlayVolume(found, folder);
  return name;
}

/** Refuses a volume that does not mount this folder's overlay as Sandpit makes it. */
export function assertOverlayVolume(
  found: { name: string; driver: string; options: Record<string, string> },
  folder: OverlayFolder,
): void {
  const wanted = overlayDriverOpts(folder);
  const same =
    found.driver === 'local' &&
    Object.entries(wanted).every(([k, v]) => found.options[k] === v) &&
    Object.keys(found.options).length === Object.keys(wanted).length;
  if (!same) {
    throw new SandpitError(
      'DENIED',
      `The volume ${found.name} does not mount the overlay of ${folder.hostPath} as Sandpit made it (${JSON.stringify(found.options)}): it is not used.`,
      { reason: 'record-mismatch' },
    );
  }
}

/** Checks the overlays a kept container mounts are still the volumes Sandpit made for them. */
export async function checkOverlayVolumes(docker: DockerClient, folders: readonly SandboxFolder[]): Promise<void> {
  for (const folder of folders) {
    if (!isOverlayFolder(folder)) continue;
    const found = await docker.inspectVolume(overlayVolumeName(folder));
    if (!found) {
      throw new SandpitError(
        'CONTAINER_DIED',
        `The overlay of ${folder.hostPath} (its volume ${overlayVolumeName(folder)}) is gone: the session's pending changes to it are still in Sandpit's data folder, but the session cannot start with it. Stop this session and start a new one.`,
      );
    }
    assertOverlayVolume(found, folder);
  }
}
