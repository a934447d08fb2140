import { homedir } from 'node:os';
import type { FolderSharing } from '../folders/folder-sharing';
import { ReviewLayers } from '../folders/review/review-layers';
import type { ReviewLayersSetting } from '../folders/review/review-layers';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { systemTrash } from '../folders/review/system-trash';
import type { Trash } from '../folders/review/system-trash';
import { SANDBOX_UID } from './container-profile';
import type { DockerClient } from './docker-client';
import { dockerOverlaySupport } from './docker-overlay-support';
import { engineSocketPaths } from './engine-discovery';

export interface DockerFolderSharingDeps {
  docker: DockerClient;
  dataFolder: string;
  /** The protected list of Settings, as it is now. */
  protectedFolders(): readonly string[];
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Where deleted files go when a change is applied (default: the system's trash). */
  trash?: Trash | undefined;
  /** Review folders' layers: overlays where the engine can mount them (else copies), or always one kind. Needs `identity` and `probeImage` for overlays. */
  reviewLayers?: ReviewLayersSetting;
  identity?: InstanceIdentity;
  /** An executor image for the overlay probe's container. */
  probeImage?: () => Promise<string>;
}

/** Whether the engine's sandboxes see this computer's file owners as they are (Docker Engine on Linux), not mapped (Docker Desktop). */
function ownersAsTheyAre(docker: DockerClient, platform: NodeJS.Platform): boolean {
  if (platform !== 'linux') return false;
  const { address, source } = docker.endpoint;
  return source !== 'Docker Desktop' && !/\/\.docker\/(desktop|run)\//.test(address);
}

/**
 * Shared folders on a Docker engine: only one on this machine sees its folders (a bind mount names a path
 * on the engine's machine); the engine's socket (in use, and every usual place) is never shared.
 */
export function dockerFolderSharing(deps: DockerFolderSharingDeps): FolderSharing {
  const platform = deps.platform ?? process.platform;
  const env = deps.env ?? process.env;
  const home = deps.home ?? homedir();
  // The copy backend: the sandbox user owns the session's copy when Sandpit may give it (running as root).
  const owner = platform === 'linux' && process.getuid?.() === 0 ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined;
  const overlay =
    deps.identity && deps.probeImage
      ? dockerOverlaySupport({ docker: deps.docker, identity: deps.identity, probeImage: deps.probeImage, platform, foldersAsTheyAre: () => ownersAsTheyAre(deps.docker, platform) })
      : undefined;
  const reviews = new ReviewLayers({
    dataFolder: deps.dataFolder,
    owner,
    trash: 'trash' in deps ? deps.trash : systemTrash(platform, env, home),
    overlay,
    setting: deps.reviewLayers ?? 'auto',
  });
  return {
    reviews,
    unavailable: () =>
      deps.docker.endpoint.kind === 'remote'
        ? `Folders of this computer can be shared only with a Docker engine on this computer; this one is at ${deps.docker.endpoint.address}.`
        : undefined,
    checkContext: () => {
      const { address } = deps.docker.endpoint;
      const sockets = engineSocketPaths(home, env, platform);
      if (address.startsWith('/') && !sockets.includes(address)) sockets.unshift(address);
      return {
        platform,
        env,
        home,
        dataFolder: deps.dataFolder,
        protectedFolders: deps.protectedFolders(),
        engineSockets: sockets,
        ...(ownersAsTheyAre(deps.docker, platform) ? { sandboxUser: { uid: SANDBOX_UID, gid: SANDBOX_UID } } : {}),
      };
    },
  };
}
