import type { Limits } from '../../shared/domain/limits';
import { AGENT_DIR, SANDPIT_CA_DIR, WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import type { ContainerSpec } from './docker-client';

/** The sandbox user's uid and gid (the images make it). */
export const SANDBOX_UID = 10001;
export const SANDBOX_USER = `${SANDBOX_UID}:${SANDBOX_UID}`;
export const AGENT_SOCKET = `${AGENT_DIR}/agent.sock`;
/**
 * RLIMIT_NPROC of the sandbox user. Always explicit: Podman otherwise asks for more than most machines' hard
 * limit and the container cannot start ("error setting rlimit type 6"). It counts the processes of uid 10001
 * across every sandbox of the engine, so it sits above the sum of the pids limits of a full house
 * (32 sessions × 256 by default) and below common hard limits; the per-sandbox cap is PidsLimit.
 */
export const SANDBOX_NPROC = 16_384;

/**
 * The host pids limit of a gVisor sandbox for `pids` processes inside it. Under runsc the host cgroup holds
 * gVisor's own processes: the Sentry's threads and, on its default ptrace platform, host stubs for every
 * task (measured here: an idle sandbox ≈ 39 host pids; 64 sleeping tasks ≈ 373; a fork bomb held at 64 tasks
 * peaked at ≈ 1,500 as stubs come and go; with a host limit of 640 it still killed the Sentry). A host limit of `pids` would kill the
 * Sentry — the whole sandbox, agent included — long before the code reached `pids`; so inside, the cap is
 * RLIMIT_NPROC, which gVisor's kernel enforces per sandbox (its own uid table), and the host limit stays
 * finite with room for gVisor.
 */
export function gvisorHostPids(pids: number): number {
  return pids * 32 + 256;
}

export interface ProfileInput {
  name: string;
  image: string;
  limits: Limits;
  labels: Record<string, string>;
  /** The size-capped volume behind /workspace; absent for helper containers that need none. */
  workspaceVolume?: string;
  /** Host directory bind-mounted at /run/sandpit for the unix-socket channel; absent for attach. */
  agentHostDir?: string;
  /** Docker network to join; absent means NetworkMode none. */
  network?: string;
  runtime?: string;
  env?: Record<string, string>;
  cmd?: string[];
  /** Extra named volumes, writable: name → mount point (e.g. the package dir, for the installer). */
  volumes?: Record<string, string>;
  /** Extra named volumes, read-only: name → mount point (e.g. the package dir, for the session itself). */
  readOnlyVolumes?: Record<string, string>;
  /** Folders of this computer the person shared (real paths, checked by src/core/folders): never anything else. */
  sharedFolders?: Array<{ hostPath: string; mountPath: string; readOnly: boolean; layerPath?: string; overlayVolume?: string }>;
  /** Groups the sandbox user joins to reach a shared folder (a user group of the folder's owner, gid ≥ 1000). */
  groupAdd?: number[];
  /** Secrets (issue 18): a host folder with the CA bundle only, bound read-only at SANDPIT_CA_DIR. */
  caDir?: string;
}

/**
 * The hardened profile of every session container (DESIGN.md §3), in one place.
 * Never host namespaces, never the Docker socket, no host bind mount but the agent dir and the folders
 * the person shared. A shared folder is bound alone (not its submounts), read-only unless the person chose
 * read-write; the engine's bind mounts cannot carry nosuid/nodev, so setuid files in it gain nothing under
 * no-new-privileges with every capability dropped, and device files in it stay closed by the engine's
 * device cgroup (shared-folders.docker.test.ts attacks both).
 */
export function hardenedContainerSpec(input: ProfileInput): ContainerSpec {
  const { limits } = input;
  const memory = limits.memoryMb * 1024 * 1024;
  const mounts: Array<Record<string, unknown>> = [];
  if (input.workspaceVolume)
    mounts.push({ Type: 'volume', Source: input.workspaceVolume, Target: WORKSPACE_DIR, ReadOnly: false });
  for (const [name, target] of Object.entries(input.volumes ?? {})) {
    mounts.push({ Type: 'volume', Source: name, Target: target, ReadOnly: false });
  }
  for (const [name, target] of Object.entries(input.readOnlyVolumes ?? {})) {
    mounts.push({ Type: 'volume', Source: name, Target: target, ReadOnly: true });
  }
  if (input.agentHostDir) {
    mounts.push({ Type: 'bind', Source: input.agentHostDir, Target: AGENT_DIR, ReadOnly: false });
  }
  const gvisor = input.runtime?.startsWith('runsc') === true;
  const nproc = gvisor ? limits.pids : SANDBOX_NPROC;
  for (const folder of input.sharedFolders ?? []) {
    // a review folder as an overlay: the engine's volume mounts the session's layer over the person's folder (read-only below)
    if (folder.overlayVolume) {
      mounts.push({ Type: 'volume', Source: folder.overlayVolume, Target: folder.mountPath, ReadOnly: false, VolumeOptions: { NoCopy: true } });
      continue;
    }
    // a review folder as a copy: its session layer is mounted (read-write), the person's folder never is
    const source = folder.layerPath ?? folder.hostPath;
    mounts.push({ Type: 'bind', Source: source, Target: folder.mountPath, ReadOnly: folder.layerPath ? false : folder.readOnly, BindOptions: { Propagation: 'rprivate', NonRecursive: true } });
  }
  if (input.caDir) {
    mounts.push({ Type: 'bind', Source: input.caDir, Target: SANDPIT_CA_DIR, ReadOnly: true, BindOptions: { Propagation: 'rprivate', NonRecursive: true } });
  }
  const hostConfig: Record<string, unknown> = {
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    ReadonlyRootfs: true,
    Privileged: false,
    Init: true,
    Memory: memory,
    MemorySwap: memory,
    NanoCpus: Math.round(limits.cpus * 1e9),
    PidsLimit: gvisor ? gvisorHostPids(limits.pids) : limits.pids,
    Ulimits: [
      { Name: 'nofile', Soft: 1024, Hard: 1024 },
      { Name: 'nproc', Soft: nproc, Hard: nproc },
      { Name: 'fsize', Soft: limits.workspaceMb * 1024 * 1024, Hard: limits.workspaceMb * 1024 * 1024 },
      { Name: 'core', Soft: 0, Hard: 0 },
    ],
    Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${limits.tmpMb}m` },
    Mounts: mounts,
    NetworkMode: input.network ?? 'none',
    IpcMode: 'private',
    PidMode: '',
    LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
    RestartPolicy: { Name: 'no' },
    AutoRemove: false,
  };
  if (input.runtime) hostConfig.Runtime = input.runtime;
  if (input.groupAdd?.length) hostConfig.GroupAdd = input.groupAdd.map(String);
  return {
    name: input.name,
    image: input.image,
    cmd: input.cmd,
    env: {
      SANDPIT_CHANNEL: input.agentHostDir ? `socket:${AGENT_SOCKET}` : 'stdio',
      SANDPIT_WORKSPACE: WORKSPACE_DIR,
      ...input.env,
    },
    labels: input.labels,
    user: SANDBOX_USER,
    workingDir: WORKSPACE_DIR,
    openStdin: !input.agentHostDir,
    hostConfig,
  };
}
