import { z } from 'zod';
import { SandpitError } from '../../shared/api/errors';
import { limitsSchema } from '../../shared/domain/limits';
import { approvalSettingsSchema, egressSettingsSchema, settingsPatchSchema, settingsSchema } from '../../shared/domain/settings';
import type { Settings, SettingsPatch } from '../../shared/domain/settings';
import { checkAllowedHost } from '../egress/allowed-host-check';

/** What settings.json holds: only what the person set; everything else comes from the configuration. */
export const storedSettingsSchema = z
  .object({
    ...settingsSchema.shape,
    approvals: approvalSettingsSchema.partial(),
    egress: egressSettingsSchema.partial(),
  })
  .partial();
export type StoredSettings = z.infer<typeof storedSettingsSchema>;

/** A zod failure as INVALID_INPUT naming each field (`patch.egress.pipIndexUrl: …`). */
export function invalidSettings(error: z.ZodError, prefix: string): SandpitError {
  const fields = error.issues.map((i) => [prefix, ...i.path.map(String)].filter(Boolean).join('.'));
  return new SandpitError(
    'INVALID_INPUT',
    error.issues.map((i, n) => `${fields[n] ?? prefix}: ${i.message}`).join('; '),
    { fields },
  );
}

/** Validates a change (shape, then the egress allow-list rules) and returns it with host entries in canonical form. */
export function parsePatch(raw: unknown): SettingsPatch {
  const parsed = settingsPatchSchema.safeParse(raw);
  if (!parsed.success) throw invalidSettings(parsed.error, 'patch');
  const patch = parsed.data;
  const hosts = patch.egress?.extraHosts;
  if (hosts && patch.egress) {
    patch.egress.extraHosts = hosts.map((entry, i) => {
      try {
        return checkAllowedHost(entry);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new SandpitError('INVALID_INPUT', `patch.egress.extraHosts.${i}: ${why}`, { fields: [`patch.egress.extraHosts.${i}`] });
      }
    });
  }
  return patch;
}

/** The stored settings with a validated change applied (see settingsPatchSchema for the merge rules). */
export function applyPatch(stored: StoredSettings, patch: SettingsPatch): StoredSettings {
  const next: StoredSettings = structuredClone(stored);
  if (patch.defaultLimits === null) delete next.defaultLimits;
  else if (patch.defaultLimits !== undefined) next.defaultLimits = { ...patch.defaultLimits };
  if (patch.dockerHost === null) delete next.dockerHost;
  else if (patch.dockerHost !== undefined) next.dockerHost = patch.dockerHost;
  if (patch.poolSize !== undefined) next.poolSize = patch.poolSize;
  if (patch.auditRetentionDays !== undefined) next.auditRetentionDays = patch.auditRetentionDays;
  if (patch.defaultIsolation !== undefined) next.defaultIsolation = patch.defaultIsolation;
  if (patch.port !== undefined) next.port = patch.port;
  if (patch.idleMinutes !== undefined) next.idleMinutes = patch.idleMinutes;
  if (patch.idleAction !== undefined) next.idleAction = patch.idleAction;
  if (patch.snapshotStoreMb !== undefined) next.snapshotStoreMb = patch.snapshotStoreMb;
  if (patch.backgroundRunMaxMinutes === null) delete next.backgroundRunMaxMinutes;
  else if (patch.backgroundRunMaxMinutes !== undefined) next.backgroundRunMaxMinutes = patch.backgroundRunMaxMinutes;
  if (patch.protectedFolders === null) delete next.protectedFolders;
  else if (patch.protectedFolders !== undefined) next.protectedFolders = [...patch.protectedFolders];
  if (patch.approvals) {
    const { perClient, ...rest } = patch.approvals;
    const approvals = { ...next.approvals, ...definedOnly(rest) };
    if (perClient) {
      const merged = { ...approvals.perClient };
      for (const [client, policy] of Object.entries(perClient)) {
        if (policy === null) delete merged[client];
        else merged[client] = policy;
      }
      approvals.perClient = merged;
    }
    next.approvals = approvals;
  }
  if (patch.egress) next.egress = { ...next.egress, ...definedOnly(patch.egress) };
  return next;
}

/** The settings in effect: the configuration's values (`base`) under what the person set. */
export function effectiveSettings(base: Settings, stored: StoredSettings): Settings {
  const dockerHost = stored.dockerHost ?? base.dockerHost;
  return {
    defaultLimits: limitsSchema.parse({ ...base.defaultLimits, ...stored.defaultLimits }),
    poolSize: stored.poolSize ?? base.poolSize,
    approvals: {
      defaultPolicy: stored.approvals?.defaultPolicy ?? base.approvals.defaultPolicy,
      perClient: { ...base.approvals.perClient, ...stored.approvals?.perClient },
      timeoutSeconds: stored.approvals?.timeoutSeconds ?? base.approvals.timeoutSeconds,
      ...definedOnly({ askWritableFolders: stored.approvals?.askWritableFolders ?? base.approvals.askWritableFolders }),
      ...definedOnly({ askInChat: stored.approvals?.askInChat ?? base.approvals.askInChat }),
      ...definedOnly({ askSecretSessions: stored.approvals?.askSecretSessions ?? base.approvals.askSecretSessions }),
    },
    ...(dockerHost === undefined ? {} : { dockerHost }),
    egress: { ...base.egress, ...definedOnly(stored.egress ?? {}) },
    auditRetentionDays: stored.auditRetentionDays ?? base.auditRetentionDays,
    defaultIsolation: stored.defaultIsolation ?? base.defaultIsolation,
    port: stored.port ?? base.port,
    idleMinutes: stored.idleMinutes ?? base.idleMinutes,
    idleAction: stored.idleAction ?? base.idleAction,
    protectedFolders: stored.protectedFolders ?? base.protectedFolders,
    snapshotStoreMb: stored.snapshotStoreMb ?? base.snapshotStoreMb,
    ...definedOnly({ backgroundRunMaxMinutes: stored.backgroundRunMaxMinutes ?? base.backgroundRunMaxMinutes }),
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
