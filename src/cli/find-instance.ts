import { readFile } from 'node:fs/promises';
import { isProcessAlive, readInstanceFile } from '../core/http/instance-file';
import { tokenPath } from '../core/http/token';

/** How long a running instance has to answer GET /health. */
export const HEALTH_TIMEOUT_MS = 1_000;

export interface RunningInstance {
  /** `http://127.0.0.1:PORT` */
  url: string;
  token: string;
}

/**
 * The Sandpit already serving this data folder (desktop app or `sandpit serve`), if one answers:
 * `$SANDPIT_HOME/instance.json` names a live process whose /health answers within a second, and the
 * token file is readable. Undefined otherwise (then `sandpit mcp` hosts the core itself).
 */
export async function findRunningInstance(
  home: string,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<RunningInstance | undefined> {
  const info = await readInstanceFile(home);
  if (!info || !isProcessAlive(info.pid)) return undefined;
  let token: string;
  try {
    token = (await readFile(tokenPath(home), 'utf8')).trim();
  } catch {
    return undefined;
  }
  if (token === '') return undefined;
  try {
    const response = await fetch(`${info.url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { ok?: unknown };
    return body.ok === true ? { url: info.url, token } : undefined;
  } catch {
    return undefined;
  }
}
