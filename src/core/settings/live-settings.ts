import { isDeepStrictEqual } from 'node:util';
import { toErrorBody } from '../../shared/api/errors';
import { resolveLimits } from '../../shared/domain/limits';
import type { Limits } from '../../shared/domain/limits';
import type { Settings } from '../../shared/domain/settings';
import { indexUrlsOf } from '../../shared/domain/package-managers';
import type { SandpitConfig } from '../config';
import type { Logger } from '../log';

/** What settings change while Sandpit runs. */
export interface LiveSettingsTargets {
  /** The core's effective configuration: readers (package installs, image builds) see new values at once. */
  config: SandpitConfig;
  sessions: { setPoolSize(size: number): void; setDefaultLimits(limits: Limits): void };
  /** The egress proxy's allow-list. */
  egress?: { setAllowed(urls: string[], extraHosts: string[]): void };
  /** Fills the built-in environments' pools (after the pool size grew from nothing). */
  warm?(): void;
  /** Moves Sandpit to another Docker engine (its address was checked before it was saved). */
  switchEngine?(address: string | undefined): Promise<void>;
  log?: Logger;
}

/**
 * Applies the settings that take effect at once: pool size, default limits (new sessions), egress
 * URLs and hosts (new installs and builds), the Docker address (sessions move to the new engine).
 * Approvals are read per call; the port waits for a restart.
 */
export function applyLiveSettings(next: Settings, previous: Settings, targets: LiveSettingsTargets): void {
  const { config, sessions } = targets;
  if (next.poolSize !== previous.poolSize) {
    config.poolSize = next.poolSize;
    sessions.setPoolSize(next.poolSize);
    if (next.poolSize > previous.poolSize) targets.warm?.();
  }
  if (!isDeepStrictEqual(next.defaultLimits, previous.defaultLimits)) {
    const limits = resolveLimits(next.defaultLimits, config.defaultLimits);
    config.defaultLimits = limits;
    sessions.setDefaultLimits(limits);
  }
  // Read by the idle sweep: the action applies at once, the minutes to sessions created from now on.
  if (next.idleMinutes !== previous.idleMinutes) config.idleTtlMs = next.idleMinutes * 60_000;
  config.idleAction = next.idleAction;
  if (next.dockerHost !== previous.dockerHost && targets.switchEngine) {
    config.dockerHost = next.dockerHost;
    targets.switchEngine(next.dockerHost).catch((error: unknown) => targets.log?.warn('could not move to the new Docker engine', { error: toErrorBody(error).message }));
  }
  if (!isDeepStrictEqual(next.egress, previous.egress)) {
    Object.assign(config, indexUrlsOf(next.egress));
    config.egressExtraHosts = [...next.egress.extraHosts];
    try {
      targets.egress?.setAllowed(Object.values(indexUrlsOf(config)), config.egressExtraHosts);
    } catch (error) {
      targets.log?.warn('could not apply the new egress allow-list', { error: toErrorBody(error).message });
    }
  }
}
