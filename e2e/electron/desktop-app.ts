/**
 * The desktop app under Playwright's `_electron.launch({ args: ['.'] })`: its own throw-away SANDPIT_HOME
 * (with a free port in settings.json), the python-data image for Python sessions, no egress proxy and
 * unreachable package indexes. It serves MCP over HTTP like `sandpit serve`; instance.json says where.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from '@playwright/test';
import type { ElectronApplication } from '@playwright/test';
import { readInstanceFile } from '../../src/core/instance-file';
import { electronExecutable } from '../support/electron-binary';
import { containersOwnedBy, pythonDataImage } from '../support/images';
import { REPO_ROOT, UNREACHABLE_NPM_REGISTRY, UNREACHABLE_PIP_INDEX } from '../support/serve-process';
import type { ServerInfo } from '../support/server-info';

export interface DesktopApp {
  app: ElectronApplication;
  server: ServerInfo;
  /** Quits the app, checks it left no containers, deletes its data folder. */
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForInstance(home: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const instance = await readInstanceFile(home);
    if (instance) return instance.url;
    if (Date.now() > deadline) throw new Error(`The desktop app did not start serving within ${timeoutMs} ms (no ${home}/instance.json).`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function launchDesktopApp(): Promise<DesktopApp> {
  const executablePath = electronExecutable(REPO_ROOT);
  if (!executablePath) throw new Error('The Electron binary is not installed (node_modules/electron/path.txt names none).');
  const pythonImage = await pythonDataImage();
  const home = await mkdtemp(join(tmpdir(), 'sandpit-e2e-electron-'));
  await writeFile(join(home, 'settings.json'), `${JSON.stringify({ port: await freePort() })}\n`, { mode: 0o600 });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('SANDPIT_')) env[key] = value;
  // Its own userData folder: the app holds a single-instance lock there, so a Sandpit the person runs
  // would otherwise make this one quit at once. As root Chromium refuses to start without --no-sandbox.
  const args = ['.', `--user-data-dir=${join(home, 'electron-user-data')}`];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const app = await _electron.launch({
    executablePath,
    args,
    cwd: REPO_ROOT,
    timeout: 60_000,
    env: {
      ...env,
      SANDPIT_HOME: home,
      SANDPIT_PYTHON_IMAGE: pythonImage,
      SANDPIT_EGRESS_PROXY: 'off',
      SANDPIT_PIP_INDEX_URL: UNREACHABLE_PIP_INDEX,
      SANDPIT_NPM_REGISTRY_URL: UNREACHABLE_NPM_REGISTRY,
    },
  });
  const pid = app.process().pid ?? 0;
  const url = await waitForInstance(home, 60_000);
  const token = (await readFile(join(home, 'token'), 'utf8')).trim();
  return {
    app,
    // The desktop panel talks to its core over IPC: no panel token is needed (or printed).
    server: { url, token, panelToken: '', home, pid, pythonImage },
    close: async () => {
      await app.close();
      const left = await containersOwnedBy(pid);
      await rm(home, { recursive: true, force: true, maxRetries: 3 });
      if (left.length > 0) throw new Error(`The desktop app left ${left.length} container(s) behind: ${left.join('; ')}`);
    },
  };
}
