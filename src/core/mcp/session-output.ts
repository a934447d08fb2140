import { z } from 'zod';
import type { SessionInfo } from '../../shared/domain/session';
import { LANGUAGES, sessionStateSchema } from '../../shared/domain/session';
import { formatDuration } from './tool-fields';

export const sessionSummarySchema = z.object({
  session_id: z.string().describe('Pass as session_id to the other tools'),
  language: z.enum(LANGUAGES).describe('Language of the session'),
  environment: z.string().describe('Environment the session was made from'),
  created: z.string().describe('When it was created (ISO 8601)'),
  last_used: z.string().describe('When it was last used (ISO 8601)'),
  status: sessionStateSchema.describe('starting | ready | busy | restarting | stopping | stopped | failed'),
  runs: z.number().int().describe('Number of runs so far'),
  packages: z.array(z.string()).describe('Packages installed at run time'),
  idle_timeout_minutes: z.number().describe('The session stops after this many idle minutes'),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** The environment a session came from; until environments exist, named after its language. */
export function environmentOf(info: SessionInfo): string {
  return info.environment ?? info.language;
}

export function toSessionSummary(info: SessionInfo): SessionSummary {
  return {
    session_id: info.id,
    language: info.language,
    environment: environmentOf(info),
    created: info.createdAt,
    last_used: info.lastUsedAt,
    status: info.state,
    runs: info.runs,
    packages: info.packages,
    idle_timeout_minutes: Math.round((info.idleTimeoutMs / 60_000) * 10) / 10,
  };
}

/** One line per session for the text a model reads. */
export function sessionLine(info: SessionInfo, now: number = Date.now()): string {
  const idle = formatDuration(Math.max(0, now - Date.parse(info.lastUsedAt)));
  const packages = info.packages.length > 0 ? `, packages: ${info.packages.join(' ')}` : '';
  return `${info.id}: ${info.language} (${environmentOf(info)}), ${info.state}, ${info.runs} run(s), created ${info.createdAt}, last used ${idle} ago${packages}`;
}
