import type { Language } from '../../shared/domain/languages';
import type { Limits } from '../../shared/domain/limits';
import type { NetworkPolicy } from '../../shared/domain/environment';
import type { Isolation } from '../../shared/domain/isolation';
import type { SecretUse } from '../../shared/domain/secret';
import type { EventBus } from '../events/event-bus';
import type { ArtifactStore } from '../files/artifact-store';
import type { MountedFolder } from '../folders/share-folders';
import type { Logger } from '../log';
import type { InstallSettings } from '../installers/helper-install';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import type { Semaphore } from '../util/semaphore';
import type { EngineMonitor } from './engine-monitor';
import type { PauseReason } from './resume-notice';
import type { RecordedRuns, RunRecord } from './run-history';
import type { WorkspaceWalk } from './workspace-tar';

/** The largest file run_file runs (the approval prompt reads it with the same cap). */
export const MAX_RUN_FILE_BYTES = 1024 * 1024;

/** What every session shares: the global run slots, the bus, the artifact store, the installers' settings. */
export interface SessionServices {
  slots: Semaphore;
  queueTimeoutMs: number;
  bus: EventBus;
  artifacts: ArtifactStore;
  maxArtifactBytes: number;
  maxArtifactsPerRun: number;
  /** Index URLs, install network and (when on) the egress proxy for this session's installs. */
  installSettings(sessionId: string): InstallSettings | Promise<InstallSettings>;
  engine: Pick<EngineMonitor, 'markDown'>;
  log: Logger;
}

/** Who a session is and where it comes from (fixed for its life). */
export interface SessionIdentity {
  language: Language;
  image: string;
  limits: Limits;
  /** A readable name: the environment's name and a number, or what the caller called it. */
  name: string;
  environment?: { id: string; name: string };
  networkPolicy: NetworkPolicy;
  isolation: Isolation;
  client?: string;
  /** Who may use it (an MCP session, a token); undefined: made in the panel, usable by every client. */
  owner?: string;
  idleTtlMs: number;
  fromPool: boolean;
  /** Secrets (issue 18) its requests may carry: names and hosts. */
  secrets?: SecretUse[];
}

function sandboxFolder(folder: MountedFolder): SandboxFolder {
  return {
    hostPath: folder.hostPath,
    mountPath: folder.mountPath,
    readOnly: folder.mode === 'ro',
    ...(folder.layerPath ? { layerPath: folder.layerPath } : {}),
    ...(folder.overlayWorkPath ? { overlayWorkPath: folder.overlayWorkPath } : {}),
    ...(folder.groupId === undefined ? {} : { groupId: folder.groupId }),
  };
}

/** What a session's folders become in its sandbox's spec. */
export function sandboxFolders(folders: readonly MountedFolder[]): SandboxFolder[] {
  return folders.map(sandboxFolder);
}

export interface ExecuteOptions {
  timeoutMs?: number;
  executionId?: string;
  /** Told when the job's turn has come (what was queued ahead of it is done): a waiting caller stops saying it waits. */
  onStart?: () => void;
}

/** What a session made by an earlier core brings along (a kept session, listed as paused). */
export interface SessionRestore {
  kept: boolean;
  createdAt: Date;
  packages: string[];
  pausedBy?: PauseReason;
  /** The successful runs recorded before Sandpit quit (what a fork's replay runs again). */
  history?: RecordedRuns;
  /** How many runs it had (the count carries on after a resume). */
  runs?: number;
}

/** What a snapshot takes of a session, in one job: its files (through a sink), its packages, its runs. */
export interface SessionContents extends WorkspaceWalk {
  packages?: { tar: Buffer; bytes: number };
  packageNames: string[];
  history: RunRecord[];
  historyComplete: boolean;
}
