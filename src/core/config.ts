import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome } from './home';
import { DEFAULT_LIMITS } from '../shared/domain/limits';
import type { Limits } from '../shared/domain/limits';
import type { Isolation } from '../shared/domain/isolation';
import type { Flavour } from '../shared/domain/languages';
import { INDEX_SETTINGS, INDEX_SETTING_ENTRIES } from '../shared/domain/package-managers';
import type { IndexSetting } from '../shared/domain/package-managers';

export type ChannelSetting = 'auto' | 'socket' | 'attach';

/** The package indexes (the registry's index settings: pipIndexUrl, npmRegistryUrl, …; a private or offline mirror works). */
export interface SandpitConfig extends Record<IndexSetting, string> {
  /** The data folder: token, settings, audit log, artifacts. */
  home: string;
  /** DOCKER_HOST-style engine address; default: DOCKER_HOST, else the local socket. */
  dockerHost?: string;
  channel: ChannelSetting;
  /** Ready containers kept per hot session template. */
  poolSize: number;
  /**
   * How long the warm sandboxes of a core that quits wait for the next core of the same data folder to take them
   * over (src/core/sessions/warm-handover.ts); 0: they are removed. `sandpit mcp` leaves them (SANDPIT_HANDOVER_SECONDS).
   */
  handOverMs: number;
  maxSessions: number;
  maxConcurrentRuns: number;
  idleTtlMs: number;
  /** What happens to a session idle for idleTtlMs: stopped for good, or paused (container stopped, files and packages kept). */
  idleAction: 'stop' | 'pause';
  defaultLimits: Limits;
  graceMs: number;
  startTimeoutMs: number;
  /** How long a run may wait for a free slot before it fails with LIMIT_EXCEEDED. */
  queueTimeoutMs: number;
  /** Isolation of sessions whose environment does not choose one (a setting; SANDPIT_ISOLATION for tests). */
  defaultIsolation: Isolation;
  /** Executor image tags to use instead of the built ones, per flavour (SANDPIT_PYTHON_IMAGE, tests). */
  images: Partial<Record<Flavour, string>>;
  port: number;
  /** Where per-session agent dirs are made (short path: unix socket paths are limited to ~100 bytes). */
  runRoot: string;
  /** Largest file captured as an artifact after a run. */
  maxArtifactBytes: number;
  maxArtifactsPerRun: number;
  /** More hosts the "packages" network policy may reach, besides the index hosts. */
  egressExtraHosts: string[];
  /** Run the egress proxy (installs and "packages" sessions reach the indexes only through it). */
  egressProxy: boolean;
  /** The network the short-lived package installer joins when the egress proxy is off (sessions themselves have none); default: the engine's network with a way out. */
  installNetwork?: string;
  installTimeoutMs: number;
  /** The executor-image/ folder (Dockerfiles, agents); default: the repository's. */
  imagesDir?: string;
  /** What /workspace is on: `auto` (a capped ext4 of its own where the engine is local and we are root, else a plain volume), or one of those. */
  workspaceStorage: 'auto' | 'loop' | 'volume';
  /** Layers of review folders ("Changes need my OK"): `auto` (an overlay where the engine can mount one, else a copy), or always one kind (SANDPIT_REVIEW_LAYERS). */
  reviewLayers: 'auto' | 'copy' | 'overlay';
}

export const DEFAULT_PORT = 7411;

/** How long `sandpit mcp` leaves its warm sandboxes for the next one: SANDPIT_HANDOVER_SECONDS (0: not at all), else 10 minutes. */
export function mcpHandOverMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.SANDPIT_HANDOVER_SECONDS);
  if (env.SANDPIT_HANDOVER_SECONDS === undefined || env.SANDPIT_HANDOVER_SECONDS === '' || !Number.isFinite(seconds) || seconds < 0) return 10 * 60_000;
  return Math.min(Math.round(seconds), 24 * 3600) * 1000;
}

/** Each index setting's URL: its variable (SANDPIT_PIP_INDEX_URL …) when set, else the registry's default. */
function defaultIndexUrls(): Record<IndexSetting, string> {
  return Object.fromEntries(INDEX_SETTINGS.map((setting) => [setting, process.env[INDEX_SETTING_ENTRIES[setting].envVar] ?? INDEX_SETTING_ENTRIES[setting].default])) as Record<IndexSetting, string>;
}

export function defaultConfig(overrides: Partial<SandpitConfig> = {}): SandpitConfig {
  const envChannel = process.env.SANDPIT_CHANNEL;
  return {
    home: resolveHome(),
    channel: envChannel === 'socket' || envChannel === 'attach' ? envChannel : 'auto',
    poolSize: 2,
    handOverMs: 0,
    maxSessions: 32,
    maxConcurrentRuns: 8,
    idleTtlMs: 30 * 60_000,
    idleAction: 'stop',
    defaultLimits: DEFAULT_LIMITS,
    graceMs: 3_000,
    startTimeoutMs: 30_000,
    queueTimeoutMs: 10 * 60_000,
    images: {},
    port: DEFAULT_PORT,
    // Per user: it must be private to whoever runs Sandpit (checked at start).
    runRoot: join(tmpdir(), `sandpit-run-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`),
    maxArtifactBytes: 50 * 1024 * 1024,
    maxArtifactsPerRun: 50,
    ...defaultIndexUrls(),
    egressExtraHosts: [],
    egressProxy: process.env.SANDPIT_EGRESS_PROXY !== 'off',
    ...(process.env.SANDPIT_INSTALL_NETWORK ? { installNetwork: process.env.SANDPIT_INSTALL_NETWORK } : {}),
    installTimeoutMs: 10 * 60_000,
    workspaceStorage: workspaceStorageFrom(process.env.SANDPIT_WORKSPACE_STORAGE),
    reviewLayers: reviewLayersFrom(process.env.SANDPIT_REVIEW_LAYERS),
    defaultIsolation: process.env.SANDPIT_ISOLATION === 'strong' ? 'strong' : 'standard',
    ...overrides,
  };
}

function reviewLayersFrom(value: string | undefined): SandpitConfig['reviewLayers'] {
  return value === 'copy' || value === 'overlay' ? value : 'auto';
}

function workspaceStorageFrom(value: string | undefined): SandpitConfig['workspaceStorage'] {
  return value === 'loop' || value === 'volume' ? value : 'auto';
}
