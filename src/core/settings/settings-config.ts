import { resolveLimits } from '../../shared/domain/limits';
import type { ApprovalSettings, Settings } from '../../shared/domain/settings';
import type { SandpitConfig } from '../config';
import { DEFAULT_PROTECTED_FOLDERS } from '../../shared/domain/shared-folder';
import { indexUrlsOf } from '../../shared/domain/package-managers';

/** Approvals before the person chose any: every client runs freely, an asked call waits two minutes. */
export const DEFAULT_APPROVALS: ApprovalSettings = { defaultPolicy: 'free', perClient: {}, timeoutSeconds: 120, askWritableFolders: false };
/** The audit log keeps everything unless the person sets a retention. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 0;
/** Snapshots may take 10 GiB of disk together unless the person sets another size. */
export const DEFAULT_SNAPSHOT_STORE_MB = 10 * 1024;

/** The settings a configuration stands for (what settings.get shows where the person set nothing). */
export function settingsFromConfig(config: SandpitConfig): Settings {
  return {
    defaultLimits: config.defaultLimits,
    poolSize: config.poolSize,
    approvals: DEFAULT_APPROVALS,
    ...(config.dockerHost === undefined ? {} : { dockerHost: config.dockerHost }),
    egress: { ...indexUrlsOf(config), extraHosts: config.egressExtraHosts },
    auditRetentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
    defaultIsolation: config.defaultIsolation,
    port: config.port,
    idleMinutes: minutesOf(config.idleTtlMs),
    idleAction: config.idleAction,
    protectedFolders: [...DEFAULT_PROTECTED_FOLDERS],
    snapshotStoreMb: DEFAULT_SNAPSHOT_STORE_MB,
  };
}

/** Whole minutes (at least 1) of an idle time, as Settings shows it. */
function minutesOf(ms: number): number {
  return Math.max(1, Math.round(ms / 60_000));
}

/** The configuration with the settings applied (at start-up; `applyLiveSettings` in app.ts does the rest later). */
export function configWithSettings(config: SandpitConfig, settings: Settings): SandpitConfig {
  return {
    ...config,
    defaultLimits: resolveLimits(settings.defaultLimits, config.defaultLimits),
    poolSize: settings.poolSize,
    dockerHost: settings.dockerHost,
    ...indexUrlsOf(settings.egress),
    egressExtraHosts: [...settings.egress.extraHosts],
    defaultIsolation: settings.defaultIsolation,
    port: settings.port,
    // A configuration finer than minutes (tests) stays as it is while the setting still says the same minutes.
    idleTtlMs: settings.idleMinutes === minutesOf(config.idleTtlMs) ? config.idleTtlMs : settings.idleMinutes * 60_000,
    idleAction: settings.idleAction,
  };
}
