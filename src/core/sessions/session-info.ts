import type { SecretUse } from '../../shared/domain/secret';
import type { ChannelKind, SessionInfo, SessionState } from '../../shared/domain/session';
import type { SharedFolder } from '../../shared/domain/shared-folder';
import type { SessionIdentity } from './session-types';

/** How a session is doing now (its identity is fixed for its life). */
export interface SessionNow {
  state: SessionState;
  channel: ChannelKind;
  containerId: string;
  createdAt: Date;
  lastUsedAt: Date;
  runs: number;
  packages: readonly string[];
  kept: boolean;
  folders: SharedFolder[];
  secrets: readonly SecretUse[];
}

/** A session as every surface shows it: who it is and how it is doing. */
export function sessionInfoOf(id: string, identity: SessionIdentity, now: SessionNow): SessionInfo {
  return {
    id,
    name: identity.name,
    language: identity.language,
    image: identity.image,
    state: now.state,
    channel: now.channel,
    limits: identity.limits,
    containerId: now.containerId,
    createdAt: now.createdAt.toISOString(),
    lastUsedAt: now.lastUsedAt.toISOString(),
    runs: now.runs,
    fromPool: identity.fromPool,
    client: identity.client,
    environment: identity.environment?.id,
    environmentName: identity.environment?.name,
    shared: identity.owner === undefined,
    packages: [...now.packages],
    network: identity.networkPolicy,
    isolation: identity.isolation,
    idleTimeoutMs: identity.idleTtlMs,
    kept: now.kept,
    folders: now.folders,
    ...(now.secrets.length ? { secrets: [...now.secrets] } : {}),
  };
}
