import type { Sandpit } from '../app';
import { startHttpServer } from './http-server';
import type { HttpMount, RunningHttpServer } from './http-server';
import { removeInstanceFile, removeInstanceFileSync, writeInstanceFile } from '../instance-file';
import { loadOrCreateToken, tokenPath } from '../connect/token';

export interface ServedHttp {
  http: RunningHttpServer;
  /** The clients' bearer token (never to a log). */
  token: string;
  /** The web panel's token, for the panel link printed to the terminal (never to a log). */
  panelToken: string;
  tokenFile: string;
  /** Removes instance.json and closes the server. */
  close(): Promise<void>;
}

/**
 * The HTTP surface of a core: loads (or creates) the access token, listens on 127.0.0.1:port and records
 * the instance in $SANDPIT_HOME/instance.json (removed on close, and on process exit at the latest).
 */
export async function serveHttp(sandpit: Sandpit, port: number, mounts: readonly HttpMount[] = []): Promise<ServedHttp> {
  const { home } = sandpit.config;
  const token = await loadOrCreateToken(home, sandpit.log);
  // The panel's own secret, kept in the data folder so an open panel survives a restart; only the panel
  // link carries it (in the URL fragment), and the Connect screen can replace it.
  const panelToken = await loadOrCreateToken(home, sandpit.log, 'panel-token');
  const http = await startHttpServer({ sandpit, port, token, panelToken, mounts });
  const detach = sandpit.endpoint.attach(http);
  await writeInstanceFile(home, { url: http.url, pid: process.pid, startedAt: new Date().toISOString() });
  const onExit = (): void => removeInstanceFileSync(home);
  process.once('exit', onExit);
  return {
    http,
    token,
    panelToken,
    tokenFile: tokenPath(home),
    close: async () => {
      process.off('exit', onExit);
      detach();
      await removeInstanceFile(home).catch(() => undefined);
      await http.close();
    },
  };
}

