import type { Limits, PartialLimits } from '../../shared/domain/limits';
import type { ChannelKind, Language, SessionState } from '../../shared/domain/session';
import type { ChannelSetting } from '../config';
import type { EngineEndpoint } from '../docker/docker-client';
import type { SerialQueue } from '../util/serial-queue';
import type { ContainerSession } from './container-session';

export interface CreateSessionInput {
  language?: Language;
  image?: string;
  limits?: PartialLimits;
  client?: string;
  /** Who may use the session (an MCP session, a token); undefined = the panel only. */
  owner?: string;
  idleTtlMs?: number;
  /** The environment the session comes from (its image, limits and network are resolved by the caller). */
  environment?: string;
  /** Docker network to join (environments with policy packages or open); default none. */
  network?: string;
  /** The network policy behind `network` (shown in the panel and the audit log). */
  networkPolicy?: 'none' | 'packages' | 'open';
  /** Extra container environment variables (e.g. the egress proxy for policy packages). */
  containerEnv?: ContainerEnv;
  /** The environment's default limits, under the caller's overrides. */
  baseLimits?: PartialLimits;
}

/** Everything that makes two sessions interchangeable: a warm pool holds containers of one template. */
export interface SessionTemplate {
  language: Language;
  image: string;
  limits: Limits;
  network?: string;
  env?: ContainerEnv;
}

/** Container variables, or a function of the session id (e.g. the egress proxy URL naming the session). */
export type ContainerEnv = Record<string, string> | ((sessionId: string) => Record<string, string>);

export interface ManagedSession {
  runtime: ContainerSession;
  language: Language;
  image: string;
  limits: Limits;
  state: SessionState;
  createdAt: Date;
  lastUsedAt: Date;
  runs: number;
  fromPool: boolean;
  client?: string;
  environment?: string;
  networkPolicy: 'none' | 'packages' | 'open';
  owner?: string;
  idleTtlMs: number;
  packages: string[];
  queue: SerialQueue;
}

/** Chooses the agent channel: the unix socket when the engine is local to us and can share a host dir. */
export function resolveChannel(setting: ChannelSetting, endpoint: EngineEndpoint): ChannelKind {
  if (setting !== 'auto') return setting;
  const canChown = typeof process.getuid === 'function' && process.getuid() === 0;
  return endpoint.kind === 'local' && process.platform === 'linux' && canChown ? 'socket' : 'attach';
}

