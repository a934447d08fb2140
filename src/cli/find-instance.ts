import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { isProcessAlive, readInstanceFile } from '../core/instance-file';
import { tokenPath } from '../core/connect/token';

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
  const healthy = await answersHealth(info.url, timeoutMs);
  return healthy ? { url: info.url, token } : undefined;
}

/** GET <url>/health answers `{ ok: true }` within the timeout (node:http: fetch takes longer to load than this takes). */
function answersHealth(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(`${url}/health`, { timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      response.on('end', () => {
        clearTimeout(timer);
        if (response.statusCode !== 200) return resolve(false);
        try {
          resolve((JSON.parse(body) as { ok?: unknown }).ok === true);
        } catch {
          resolve(false);
        }
      });
      response.on('error', () => resolve(false));
    });
    const timer = setTimeout(() => request.destroy(), timeoutMs);
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
