import { z } from 'zod';
import { isolationSchema } from './isolation';
import { approvalPolicySchema } from './approval';
import { partialLimitsSchema } from './limits';
import { INDEX_SETTINGS, INDEX_SETTING_ENTRIES } from './package-managers';
import type { IndexSetting } from './package-managers';

/**
 * The person's settings ($SANDPIT_HOME/settings.json). They override the built-in configuration at
 * start-up; pool size, default limits, approvals, egress URLs and audit retention apply at once,
 * `port` after a restart (RESTART_SETTINGS); a new `dockerHost` is checked when it is saved and used at once.
 */

const httpUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048);
/** Shape only; the core checks each entry further (the egress allow-list rules). */
export const hostEntrySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^(\*\.)?[A-Za-z0-9_.:[\]-]+$/, 'must be a hostname or a *.domain wildcard');
const clientNameSchema = z.string().min(1).max(128);

export const approvalSettingsSchema = z.object({
  defaultPolicy: approvalPolicySchema.describe('Policy of clients without their own'),
  perClient: z.record(clientNameSchema, approvalPolicySchema).describe('Policy per client name (MCP clientInfo.name, "rest")'),
  timeoutSeconds: z.number().int().min(10).max(3_600).describe('How long an asked call waits for an answer before it counts as denied'),
  askWritableFolders: z.boolean().optional().describe('Ask before code runs in a session that has a read-write shared folder, whatever the client\'s policy (default: no)'),
  askInChat: z.boolean().optional().describe('Also ask approval questions in the assistant\'s chat when it can (MCP elicitation) (default: yes)'),
  askSecretSessions: z.boolean().optional().describe('Ask before code runs in a session that can use a secret, whatever the client\'s policy (default: no)'),
});
export type ApprovalSettings = z.infer<typeof approvalSettingsSchema>;

/** One URL per index setting of the package-manager registry (pipIndexUrl, npmRegistryUrl, …). */
const indexUrlsShape = Object.fromEntries(INDEX_SETTINGS.map((setting) => [setting, httpUrlSchema.describe(INDEX_SETTING_ENTRIES[setting].description)])) as { [S in IndexSetting]: typeof httpUrlSchema };

export const egressSettingsSchema = z.object({
  ...indexUrlsShape,
  extraHosts: z.array(hostEntrySchema).max(100).describe('More hosts the "packages" network policy may reach (e.g. a mirror\'s file host)'),
});
export type EgressSettings = z.infer<typeof egressSettingsSchema>;

export const settingsSchema = z.object({
  defaultLimits: partialLimitsSchema.describe('Limits of new sessions (fields not set keep the built-in defaults)'),
  poolSize: z.number().int().min(0).max(16).describe('Ready sandboxes kept per hot environment (0 = none)'),
  approvals: approvalSettingsSchema,
  dockerHost: z
    .string()
    .max(512)
    .regex(/^(unix|npipe|tcp|ssh|http|https):\/\/\S+$/, 'must look like unix:///var/run/docker.sock or tcp://host:2376')
    .optional()
    .describe('Docker engine address; default: DOCKER_HOST, else the local socket'),
  egress: egressSettingsSchema,
  auditRetentionDays: z.number().int().min(0).max(36_500).describe('Days the audit log keeps runs (0 = forever)'),
  defaultIsolation: isolationSchema.describe('Isolation of sessions whose environment does not choose one'),
  port: z.number().int().min(1_024).max(65_535).describe('Port of the local HTTP server (MCP, REST, web panel)'),
  idleMinutes: z.number().int().min(1).max(24 * 60).describe('Minutes without use after which a session is stopped or paused (new sessions; a session asked for its own keeps it)'),
  idleAction: z.enum(['stop', 'pause']).describe('What happens to an idle session: stop (removed with its files) or pause (container stopped, files and packages kept; resumed on next use)'),
  protectedFolders: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(4096)
        .regex(/^(~|\/|[A-Za-z]:[\\/])/, 'must be a full path, or start with ~ for the home folder'),
    )
    .max(200)
    .describe('Folders never shared with a session, nor anything inside or containing them (~ = the home folder)'),
  snapshotStoreMb: z
    .number()
    .int()
    .min(0)
    .max(16 * 1024 * 1024)
    .describe('Disk space all snapshots together may take, in MiB (a snapshot that would need more is refused; 0 = no snapshots)'),
  // Background runs (issue 23).
  backgroundRunMaxMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .optional()
    .describe('Longest background run, in minutes (a background run without its own time limit stops after one hour, or this if shorter; default 60)'),
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;
export const SETTING_KEYS = Object.keys(settingsSchema.shape) as SettingKey[];
export const settingKeySchema = z.enum(SETTING_KEYS as [SettingKey, ...SettingKey[]]);

/** Settings that only take effect when Sandpit starts again. */
export const RESTART_SETTINGS: readonly SettingKey[] = ['port'];

/**
 * A change: each key given replaces that setting (`defaultLimits` and `protectedFolders` as a
 * whole; null = the built-in default), except `approvals` and `egress`, whose fields are merged, and `approvals.perClient`, which
 * is merged per client (null removes a client's own policy).
 */
export const settingsPatchSchema = z
  .object({
    defaultLimits: partialLimitsSchema.nullable(),
    poolSize: settingsSchema.shape.poolSize,
    approvals: z
      .object({
        defaultPolicy: approvalPolicySchema,
        perClient: z.record(clientNameSchema, approvalPolicySchema.nullable()),
        timeoutSeconds: approvalSettingsSchema.shape.timeoutSeconds,
        askWritableFolders: z.boolean(),
        askInChat: z.boolean(),
        askSecretSessions: z.boolean(),
      })
      .partial()
      .strict(),
    dockerHost: settingsSchema.shape.dockerHost.unwrap().nullable(),
    egress: egressSettingsSchema.partial().strict(),
    auditRetentionDays: settingsSchema.shape.auditRetentionDays,
    defaultIsolation: settingsSchema.shape.defaultIsolation,
    port: settingsSchema.shape.port,
    idleMinutes: settingsSchema.shape.idleMinutes,
    idleAction: settingsSchema.shape.idleAction,
    protectedFolders: settingsSchema.shape.protectedFolders.nullable(),
    snapshotStoreMb: settingsSchema.shape.snapshotStoreMb,
    backgroundRunMaxMinutes: settingsSchema.shape.backgroundRunMaxMinutes.unwrap().nullable(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** What the panel sees: the settings in effect, where they live, and what waits for a restart. */
export const settingsViewSchema = settingsSchema.extend({
  dataFolder: z.string().describe('The data folder: token, settings, audit log, artifacts'),
  restartNeeded: z.array(settingKeySchema).describe('Settings changed since start-up that apply only after a restart'),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;
