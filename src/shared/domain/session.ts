import { secretUseSchema } from './secret';
import { z } from 'zod';
import { limitsSchema } from './limits';
import { isolationSchema } from './isolation';
import { LANGUAGES } from './languages';
import { sharedFolderSchema } from './shared-folder';

export const languageSchema = z.enum(LANGUAGES);

/**
 * Lifecycle of a session: starting → ready ⇄ busy → (restarting → ready) → stopping → stopped; a paused
 * session's container is stopped with its files and packages kept (idle, or Sandpit quit while it was kept).
 */
export const SESSION_STATES = ['starting', 'ready', 'busy', 'restarting', 'paused', 'stopping', 'stopped', 'failed'] as const;
export const sessionStateSchema = z.enum(SESSION_STATES);
export type SessionState = z.infer<typeof sessionStateSchema>;

export const channelKindSchema = z.enum(['socket', 'attach']);
export type ChannelKind = z.infer<typeof channelKindSchema>;

export const sessionInfoSchema = z.object({
  id: z.string(),
  name: z.string().describe('A readable name: the environment\'s name and a number, or what the assistant called it'),
  language: languageSchema,
  image: z.string(),
  environment: z.string().optional().describe('Id of the environment it was made from'),
  environmentName: z.string().optional().describe('Name of that environment'),
  shared: z.boolean().describe('Made in the panel: every assistant may use it (else only the client that made it)'),
  state: sessionStateSchema,
  channel: channelKindSchema,
  limits: limitsSchema,
  containerId: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  runs: z.number().int(),
  fromPool: z.boolean(),
  client: z.string().optional(),
  packages: z.array(z.string()).describe('Packages installed in this session at run time'),
  network: z.enum(['none', 'packages', 'open']).describe('Network policy: none, package indexes through the egress proxy, or open'),
  isolation: isolationSchema,
  idleTimeoutMs: z.number().int(),
  kept: z.boolean().describe('Kept across a restart of Sandpit: when Sandpit quits its container stops, files and packages stay, and it is listed as paused on the next start'),
  folders: z.array(sharedFolderSchema).describe('Folders of the person\'s computer this session has, where they appear and how (ro/rw); only the person adds them, in the panel'),
  // Secrets (issue 18): names and hosts only.
  secrets: z.array(secretUseSchema).optional().describe('Secrets its requests to their hosts carry (added by the egress proxy; the sandbox holds only the placeholder in the variable named)'),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

/** What a session uses now: CPU in cores, memory and workspace disk in bytes (with their limits). */
export const sessionStatsSchema = z.object({
  at: z.string().describe('When it was measured (ISO 8601)'),
  cpu: z.number().nonnegative().describe('CPU in use, in cores (1 = one core busy)'),
  cpuLimit: z.number().positive(),
  memoryBytes: z.number().nonnegative(),
  memoryLimitBytes: z.number().nonnegative(),
  workspaceBytes: z.number().nonnegative().optional(),
  workspaceLimitBytes: z.number().nonnegative().optional(),
  pids: z.number().int().nonnegative(),
});
export type SessionStats = z.infer<typeof sessionStatsSchema>;
