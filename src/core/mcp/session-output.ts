import { z } from 'zod';
import type { SecretUse } from '../../shared/domain/secret';
import type { SessionInfo } from '../../shared/domain/session';
import { sessionStateSchema } from '../../shared/domain/session';
import { LANGUAGES } from '../../shared/domain/languages';
import { formatDuration } from './tool-fields';

/** A secret as an assistant sees it (issue 18): its name, hosts and the variable holding a stand-in — never its value. */
export const secretOfSessionSchema = z.object({
  name: z.string().describe('Name of the secret'),
  hosts: z.array(z.string()).describe('The hosts Sandpit puts it into requests for (HTTPS)'),
  variable: z.string().describe('The environment variable holding a stand-in: send it as the key, Sandpit puts the real value in for those hosts'),
});

/** The secrets as an assistant sees them; undefined when there are none. */
export function secretsOf(secrets: readonly SecretUse[] | undefined): Array<z.infer<typeof secretOfSessionSchema>> | undefined {
  return secrets?.length ? secrets.map((s) => ({ name: s.name, hosts: [...s.hosts], variable: s.envVar })) : undefined;
}

/** The secrets in words, for the text a model reads ('' when there are none). */
export function secretsPhrase(secrets: readonly SecretUse[] | undefined): string {
  if (!secrets?.length) return '';
  const each = secrets.map((s) => `${s.name} for ${s.hosts.join(', ')} (${s.envVar} holds a stand-in; Sandpit puts the value in)`);
  return `, can use the secret${secrets.length > 1 ? 's' : ''} ${each.join(', ')}`;
}

export const sessionSummarySchema = z.object({
  session_id: z.string().describe('Pass as session_id to the other tools'),
  name: z.string().describe('Its name in the Sandpit panel'),
  language: z.enum(LANGUAGES).describe('Language of the session'),
  environment: z.string().describe('Id of the environment the session was made from'),
  environment_name: z.string().describe('Name of that environment'),
  shared: z.boolean().describe('Made by the person in the Sandpit panel (shared with every assistant)'),
  created: z.string().describe('When it was created (ISO 8601)'),
  last_used: z.string().describe('When it was last used (ISO 8601)'),
  status: sessionStateSchema.describe('starting | ready | busy | restarting | paused | stopping | stopped | failed (paused: its container is stopped with files and packages kept; the next call resumes it, without the variables)'),
  runs: z.number().int().describe('Number of runs so far'),
  packages: z.array(z.string()).describe('Packages installed at run time'),
  idle_timeout_minutes: z.number().describe('The session stops after this many idle minutes'),
  kept: z.boolean().describe('Kept across a restart of Sandpit (files and packages stay; variables do not)'),
  shared_folders: z
    .array(
      z.object({
        path: z.string().describe('Where the folder is in the sandbox (read and list it there)'),
        name: z.string().describe('Its name'),
        mode: z
          .enum(['ro', 'rw', 'review'])
          .describe('"ro" = read-only (writes fail), "rw" = changes reach the person\'s computer, "review" = writable, but changes wait for the person\'s OK (list_changes shows them)'),
      }),
    )
    .describe("Folders of the person's computer this session has; only the person adds them, in the Sandpit panel"),
  secrets: z.array(secretOfSessionSchema).optional().describe('Secrets its requests can carry; only the person adds them, in the Sandpit panel'),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export function toSessionSummary(info: SessionInfo): SessionSummary {
  return {
    session_id: info.id,
    name: info.name,
    language: info.language,
    environment: info.environment ?? info.language,
    environment_name: info.environmentName ?? info.environment ?? info.language,
    shared: info.shared,
    created: info.createdAt,
    last_used: info.lastUsedAt,
    status: info.state,
    runs: info.runs,
    packages: info.packages,
    idle_timeout_minutes: Math.round((info.idleTimeoutMs / 60_000) * 10) / 10,
    kept: info.kept,
    shared_folders: info.folders.map((f) => ({ path: f.mountPath, name: f.name, mode: f.mode })),
    ...(info.secrets?.length ? { secrets: secretsOf(info.secrets) } : {}),
  };
}

/** The session's shared folders in words, for the text a model reads ('' when it has none). */
export function foldersPhrase(info: SessionInfo): string {
  if (info.folders.length === 0) return '';
  const words = { ro: 'read-only', rw: "read-write: changes reach the person's computer", review: "writable: changes wait for the person's OK in Sandpit (list_changes shows them)" } as const;
  const each = info.folders.map((f) => `${f.mountPath} (${words[f.mode]})`);
  return `, shared folders of the person's computer: ${each.join(', ')}`;
}

/** One line per session for the text a model reads. */
export function sessionLine(info: SessionInfo, now: number = Date.now()): string {
  const idle = formatDuration(Math.max(0, now - Date.parse(info.lastUsedAt)));
  const packages = info.packages.length > 0 ? `, packages: ${info.packages.join(' ')}` : '';
  const shared = info.shared ? ', shared with every assistant' : '';
  const kept = info.kept ? ', kept across restarts' : '';
  const paused = info.state === 'paused' ? ' (files and packages kept; the next call resumes it without its variables)' : '';
  return `${info.id} "${info.name}": ${info.language}, environment ${info.environment ?? info.language}, ${info.state}${paused}, ${info.runs} run(s), created ${info.createdAt}, last used ${idle} ago${packages}${shared}${kept}${foldersPhrase(info)}${secretsPhrase(info.secrets)}`;
}
