import type { Readable, Writable } from 'node:stream';
import type { Limits } from '../../shared/domain/limits';
import type { Language } from '../../shared/domain/languages';
import type { Isolation } from '../../shared/domain/isolation';
import type { EngineProduct } from '../../shared/domain/engine';
import type { ChannelKind } from '../../shared/domain/session';
import type { ChunkReader } from './chunk-reader';
import type { AgentChannel } from './agent-channel';

/**
 * What a session needs from an engine, shaped by the session and not by any engine's API. Docker is the
 * first implementation (src/core/docker/docker-backend.ts); a Kubernetes or microVM backend would map
 * the same calls onto pods (docs/architecture.md). Nothing above src/core/sessions/ sees a backend.
 */
export interface SandboxBackend {
  /** Where the engine is and how it was found, in plain words. */
  readonly endpoint: BackendEndpoint;
  /** The agent channel this backend's sandboxes speak over. */
  readonly channel: ChannelKind;
  /** Answers when the engine is reachable; throws DOCKER_UNAVAILABLE (with how to fix it) when not. */
  ping(timeoutMs?: number): Promise<EngineInfo>;
  /** How to get the engine running again, in plain words (shown when it is down). */
  fixHint(): string;
  /** Creates a sandbox (its storage and its container under the hardened profile); not started yet. */
  create(spec: SandboxSpec): Promise<Sandbox>;
  /** The sandbox of a kept session again, from its record (after Sandpit restarted); not started. */
  reopen(spec: SandboxSpec, record: SandboxRecord, options?: ReopenOptions): Promise<Sandbox>;
  /** Tells when the backend's event stream is lost (the engine may have gone away). */
  onLost(listener: () => void): void;
}

export interface ReopenOptions {
  /**
   * Its container is made again from `spec` (this core's network, variables and CA bundle), keeping /workspace and
   * the installed packages: for a sandbox whose network ended with the core that made it (the egress proxy's).
   * Every container Sandpit made for the session is removed first; the one the record names must be one of them,
   * or gone (a crash between removing it and writing the record again).
   */
  remake?: boolean;
  /**
   * Its container is still running (a warm sandbox an earlier core left, warm-handover.ts): it must be, and the
   * first start only connects to its agent. Not with `remake`.
   */
  running?: boolean;
}

export interface BackendEndpoint {
  kind: 'local' | 'remote';
  /** The socket path or host:port. */
  address: string;
  /** How it was found, in plain words. */
  source?: string;
}

export interface EngineInfo {
  /** Which engine answered: Docker, or Podman through its Docker-compatible API (some parts of Sandpit are not offered there). */
  product: EngineProduct;
  version: string;
  apiVersion: string;
  os: string;
  /** Container runtimes the engine offers (runc, runsc …). */
  runtimes: string[];
}

export interface SandboxSpec {
  sessionId: string;
  language: Language;
  image: string;
  limits: Limits;
  /** The network to join (an engine network name); absent: no network at all. */
  network?: string;
  /** Extra variables for the agent and user code (e.g. the egress proxy). */
  env?: Record<string, string>;
  /** standard: the hardened container; strong: gVisor (the backend refuses, saying how to set it up, when it cannot). */
  isolation: Isolation;
  /** Made ahead of time for a warm pool. */
  pooled: boolean;
  /** Folders of this computer the person shared (a bind mount is fixed when the container is made: never pooled). */
  folders?: SandboxFolder[];
  /** Secrets (issue 18): a host folder with the CA bundle the sandbox trusts, mounted read-only at /etc/sandpit-ca. */
  caDir?: string;
  /**
   * Checks the folders again (src/core/folders/recheck-folders.ts), right before each container that mounts
   * them is made or started; throws when one may no longer be mounted. What it returns is what is mounted.
   */
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>;
}

/** A folder of this computer inside a sandbox, already checked (src/core/folders) and resolved to its real path. */
export interface SandboxFolder {
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
  /**
   * A review folder ("Changes need my OK"): the session's own layer (a folder in Sandpit's data folder,
   * src/core/folders/review/) is what is mounted, read-write, never `hostPath` itself.
   */
  layerPath?: string;
  /**
   * Present when the layer is an overlay: `layerPath` is its upper folder and this its work folder, and the
   * sandbox mounts an overlay of them over `hostPath`, which stays read-only below (else `layerPath` is a copy).
   */
  overlayWorkPath?: string;
  /** A group the sandbox user joins to reach it (the folder's own user group). */
  groupId?: number;
}

/** What a backend needs to find a kept sandbox again after Sandpit restarted (saved in the data folder). */
export interface SandboxRecord {
  containerId: string;
  channel: ChannelKind;
  runtime: string;
  /** The host folder of its agent socket (socket channel). */
  agentDir?: string;
  /** Its capped workspace: the disk image and the loop device it is attached to. */
  workspace?: { image: string; device: string };
}

export interface SandboxState {
  running: boolean;
  exitCode: number;
  /** The engine says the main process was killed for memory. */
  oomKilled: boolean;
}

/** Who runs a command in the sandbox: always the sandbox user (never root). */
export interface SandboxExecOptions {
  workingDir?: string;
  env?: Record<string, string>;
  /** What the program reads on stdin (a stream is piped in, then stdin is closed). */
  stdin?: Buffer | Readable;
  timeoutMs: number;
  maxOutputBytes?: number;
  /** Binary stdout goes here as it comes (not collected; ended when the program ends). */
  stdoutTo?: Writable;
  /** Or binary stdout is taken read by read (chunk-reader.ts: not collected; every byte taken once the exec resolves). */
  stdoutReader?: ChunkReader;
  /** Aborting cuts the program's streams (a pipe it writes to breaks). */
  signal?: AbortSignal;
  /** Told each piece of text as it comes (what is collected: within the cap, whole UTF-8 characters). */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
}

export interface SandboxExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** A short-lived helper beside a sandbox: its image, its package store writable, a network to fetch from. */
export interface HelperSpec {
  cmd: string[];
  env: Record<string, string>;
  /** The network the helper joins (the install network or the egress proxy's). */
  network: string;
  timeoutMs: number;
  maxOutputBytes: number;
}

export interface SandboxStats {
  /** CPU use since the previous sample, in cores (1 = one core busy). */
  cpu: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  /** Bytes used in /workspace (and its cap). */
  workspaceBytes?: number;
  workspaceLimitBytes?: number;
  pids: number;
}

/** One sandbox: a container (or pod, or VM) with its workspace, its package store and its agent. */
export interface Sandbox {
  readonly sessionId: string;
  /** The agent channel of this sandbox (gVisor's cannot share a socket with the host: they attach). */
  readonly channel: ChannelKind;
  /** The engine's runtime it runs under (runc, runsc …), for the audit log. */
  readonly runtime: string;
  /** The engine's id of the container (for logs and the panel's details). */
  readonly containerId: string;
  /**
   * The engine's name when it never reports memory kills (Podman: no OOMKilled, no oom event), so a sandbox
   * killed with exit 137 may have hit its memory limit without anyone saying so; absent where the engine does.
   */
  readonly unreportedOom?: string;
  /**
   * Where a host-side listening socket can be put so that code in the sandbox can connect to it (previews'
   * tunnels): a path in the session's agent folder (socket channel) and the same path seen inside, with the
   * uid that must own it. Absent where the sandbox shares no folder with the host (the attach channel).
   */
  tunnelSocket?(name: string): { hostPath: string; insidePath: string; uid: number } | undefined;
  /** Starts it (again, after a kill or a crash) and opens the agent's channel. */
  start(timeoutMs: number): Promise<AgentChannel>;
  /** SIGKILL to everything in it; resolves once the engine took the signal. */
  kill(): Promise<void>;
  state(): Promise<SandboxState>;
  /** Whether the engine reported an OOM kill in it at or after `sinceMs`. */
  oomSince(sinceMs: number): boolean;
  /** Polls briefly for an OOM report (it can arrive just after the streams close). */
  waitForOom(sinceMs: number, timeoutMs: number): Promise<boolean>;
  /** Runs a program (argv, never a shell line) as the sandbox user. */
  exec(argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult>;
  /** Runs a helper to completion beside the sandbox (package installs). */
  runHelper(spec: HelperSpec): Promise<SandboxExecResult>;
  stats(): Promise<SandboxStats>;
  /**
   * A clean archive of the package store (what installs added: folders, regular files, links that stay
   * inside), read by the engine without following links; undefined when nothing was installed.
   */
  exportPackages(maxBytes: number): Promise<{ tar: Buffer; bytes: number } | undefined>;
  /** Unpacks such an archive into the package store (by a helper beside the sandbox that never runs). */
  importPackages(tar: Buffer): Promise<void>;
  /**
   * Replaces the container by a new one with these shared folders (a bind mount is fixed when a container
   * is made), keeping /workspace and the installed packages; not started. The old one is killed first.
   */
  replaceFolders(folders: SandboxFolder[]): Promise<void>;
  /** Removes the container, its storage and its channel folder. Safe to call more than once. */
  remove(): Promise<void>;
  /** What reopen needs to find this sandbox again (its container stopped, its storage kept). */
  record(): SandboxRecord;
}
