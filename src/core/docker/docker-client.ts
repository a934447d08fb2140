import type { Readable, Writable } from 'node:stream';
import type { ChunkReader } from '../sandbox/chunk-reader';
import type { ImageInfo } from '../sandbox/sandbox-images';
import type { NetworkInfo, NetworkSummary } from '../sandbox/sandbox-networks';
import type { ContainerProfile } from './profile-check';

/** Everything Sandpit asks of a Docker engine. One dockerode implementation; tests of others may fake it. */
export interface DockerClient {
  /** Where the engine is: `local` when it speaks over a unix socket on this machine. */
  readonly endpoint: EngineEndpoint;
  ping(timeoutMs?: number): Promise<EngineVersion>;

  createContainer(spec: ContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  killContainer(id: string, signal?: string): Promise<void>;
  removeContainer(id: string): Promise<void>;
  inspectContainer(id: string): Promise<ContainerState>;
  waitContainer(id: string): Promise<number>;
  /** One sample of the container's resource use (CPU since the engine's previous sample, memory, pids). */
  containerStats(id: string): Promise<ContainerStats>;
  /** Runs a container to completion (create → start → wait ≤ timeout → logs → remove); kills it on timeout. */
  runToCompletion(spec: ContainerSpec, options: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult>;
  attachContainer(id: string): Promise<AttachedStreams>;
  exec(id: string, argv: string[], options?: ExecOptions): Promise<ExecResult>;
  listContainers(labels: Record<string, string | true>): Promise<ContainerSummary[]>;

  putArchive(id: string, dir: string, tar: Buffer): Promise<void>;
  getArchive(id: string, path: string): Promise<Readable>;

  createVolume(spec: VolumeSpec): Promise<string>;
  removeVolume(name: string): Promise<void>;
  /** The volume's driver, options, labels and where the engine mounts it; undefined when there is none. */
  inspectVolume(name: string): Promise<VolumeInfo | undefined>;
  listVolumes(labels: Record<string, string | true>): Promise<VolumeSummary[]>;

  imageExists(tag: string): Promise<boolean>;
  /** The image's id and labels, or undefined when no image has this tag/id. */
  inspectImage(tag: string): Promise<ImageInfo | undefined>;
  buildImage(context: Buffer, options: BuildOptions, onLog?: (line: string) => void): Promise<void>;
  importImage(rootfsTar: Readable, tag: string): Promise<void>;
  removeImage(tag: string): Promise<void>;

  createNetwork(spec: NetworkSpec): Promise<string>;
  removeNetwork(id: string): Promise<void>;
  connectNetwork(networkId: string, containerId: string, aliases?: string[]): Promise<void>;
  /** The network's id, name, labels and IPv4 subnets with their gateways, or undefined when there is no such network. */
  inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined>;
  listNetworks(labels: Record<string, string | true>): Promise<NetworkSummary[]>;

  /** Follows the engine's events for containers with these labels; returns a stop function. */
  watchEvents(labels: Record<string, string | true>, onEvent: (event: EngineEvent) => void, onEnd: (error?: Error) => void): Promise<() => void>;
}

export interface EngineEndpoint {
  /** `local`: the engine runs on this machine (a socket, or TCP on loopback); `remote`: elsewhere. */
  kind: 'local' | 'remote';
  /** Human description: the socket path or host:port. */
  address: string;
  /** How it was found, in plain words ("DOCKER_HOST", "docker context \"colima\"", "Docker Desktop" …). */
  source?: string;
  /** A local engine reached over TCP (its containers cannot share a folder with us for the socket channel). */
  tcp?: boolean;
  /** Reached over TLS with a client certificate. */
  tls?: boolean;
}

export interface EngineVersion {
  /** Which engine answers the Docker API: Docker itself, or Podman's Docker-compatible service. */
  product: EngineProduct;
  version: string;
  apiVersion: string;
  os: string;
  runtimes: string[];
  /** The engine runs rootless (in a user namespace of an ordinary user): `name=rootless` among its security options. */
  rootless?: boolean;
}

export type EngineProduct = 'docker' | 'podman';

export interface ContainerSpec {
  name?: string;
  image: string;
  cmd?: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  user: string;
  workingDir: string;
  openStdin: boolean;
  /** The raw HostConfig (built by container-profile.ts only). */
  hostConfig: Record<string, unknown>;
  networkingConfig?: Record<string, unknown>;
}

export interface ContainerState {
  id: string;
  running: boolean;
  status: string;
  exitCode: number;
  oomKilled: boolean;
  pid: number;
  labels: Record<string, string>;
  ipAddress?: string;
  /** The engine runtime it runs under (runc, runsc …). */
  runtime?: string;
  /** The image it was made from, as named then. */
  image?: string;
  /** Its network mode as made (`none`, `bridge`, a network's name). */
  networkMode?: string;
  /** Its bind mounts of this computer's folders, as made. */
  binds?: Array<{ source: string; target: string; readOnly: boolean }>;
  /** Its protections and limits, as made (profile-check.ts). */
  profile?: ContainerProfile;
}

export interface ContainerStats {
  /** CPU use in cores over the engine's sampling interval (1 = one core busy). */
  cpu: number;
  memoryBytes: number;
  /** 0 when the engine does not say. */
  memoryLimitBytes: number;
  pids: number;
}

export interface ContainerSummary {
  id: string;
  names: string[];
  state: string;
  labels: Record<string, string>;
}

export interface VolumeSpec {
  name: string;
  labels: Record<string, string>;
  driverOpts?: Record<string, string>;
}

export interface VolumeSummary {
  name: string;
  labels: Record<string, string>;
}

export interface VolumeInfo extends VolumeSummary {
  driver: string;
  options: Record<string, string>;
  /** Where the engine mounts it on its machine. */
  mountpoint: string;
}

export interface NetworkSpec {
  name: string;
  labels: Record<string, string>;
  internal: boolean;
}

export interface BuildOptions {
  tag: string;
  dockerfile?: string;
  buildArgs?: Record<string, string>;
  labels?: Record<string, string>;
  networkMode?: string;
}

export interface ExecOptions {
  user?: string;
  env?: Record<string, string>;
  workingDir?: string;
  /** What the program reads on stdin (a stream is piped in, then stdin is closed). */
  stdin?: Buffer | Readable;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** Binary stdout goes here as it comes (uncapped, not collected; ended when the program ends). */
  stdoutTo?: Writable;
  /** Or binary stdout is taken read by read (chunk-reader.ts: uncapped, not collected; every byte taken once the exec resolves). */
  stdoutReader?: ChunkReader;
  /** Aborting cuts the program's streams (a pipe it writes to breaks). */
  signal?: AbortSignal;
  /** Told each piece of text as it comes (what is collected: within the cap, whole UTF-8 characters). */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface AttachedStreams {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  close(): void;
}

export interface EngineEvent {
  type: string;
  action: string;
  id: string;
  labels: Record<string, string>;
  exitCode?: number;
  time: number;
}
