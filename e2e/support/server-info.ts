/** The Sandpit the specs talk to: where it serves, its token and its data folder. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerInfo {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The clients' bearer token ($SANDPIT_HOME/token): what assistants send to /mcp and REST. */
  token: string;
  /**
   * The web panel's token, from the link `sandpit serve` prints (#token=…): what the panel and /api take.
   * Where the server has no separate one it equals `token`; '' for the desktop app (its panel uses IPC).
   */
  panelToken: string;
  /** Its SANDPIT_HOME. */
  home: string;
  /** The process that serves (the CLI child, or the Electron main process). */
  pid: number;
  /** The executor image of its Python sessions (the python-data one, with matplotlib). */
  pythonImage: string;
}

/** Set by the global setup for the workers: the JSON file holding the ServerInfo of `sandpit serve`. */
export const STATE_ENV = 'SANDPIT_E2E_STATE';

export function isServerInfo(value: unknown): value is ServerInfo {
  const v = value as Partial<ServerInfo> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.url === 'string' &&
    typeof v.token === 'string' &&
    typeof v.panelToken === 'string' &&
    typeof v.home === 'string' &&
    typeof v.pid === 'number' &&
    typeof v.pythonImage === 'string'
  );
}

/**
 * The server's details with `panelToken` read from its data folder each time (`$SANDPIT_HOME/panel-token`):
 * a spec that makes a new panel link does not leave the others with the old one.
 */
export function withLivePanelToken(info: ServerInfo): ServerInfo {
  const file = join(info.home, 'panel-token');
  let last = info.panelToken;
  const live = { ...info };
  Object.defineProperty(live, 'panelToken', {
    enumerable: true,
    get: (): string => {
      if (existsSync(file)) last = readFileSync(file, 'utf8').trim() || last;
      return last;
    },
  });
  return live;
}

/** The ServerInfo the global setup wrote (throws, saying why, when the setup did not run). */
export function readServerInfo(): ServerInfo {
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the specs with "npx playwright test" (its globalSetup starts Sandpit).`);
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isServerInfo(parsed)) throw new Error(`${file} does not hold the e2e server's details.`);
  return withLivePanelToken(parsed);
}
