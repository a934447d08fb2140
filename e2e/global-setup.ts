/**
 * Starts one real headless Sandpit for the whole run (a child process: `sandpit serve --port 0`) with a
 * throw-away SANDPIT_HOME, no egress proxy, a demo pip index on a Docker network of its own (nothing is
 * fetched from anywhere else), and the python-data image for Python sessions. Workers find it through the JSON file named by SANDPIT_E2E_STATE. The returned teardown
 * stops it and fails the run if any container it made is left behind.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { ELECTRON_SKIP_REASON, electronExecutable } from './support/electron-binary';
import { containersOwnedBy, pythonDataImage, startE2ePackageIndex } from './support/images';
import { REPO_ROOT, startServe } from './support/serve-process';
import { STATE_ENV } from './support/server-info';

function say(line: string): void {
  process.stderr.write(`[e2e] ${line}\n`);
}

export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= 24)) throw new Error(`The e2e tests need Node 24 (node:sqlite in the core); this is ${process.version}.`);
  const started = Date.now();
  const electron = electronExecutable(REPO_ROOT);
  say(electron ? `electron project: runs with ${electron}` : `electron project: every spec is SKIPPED — ${ELECTRON_SKIP_REASON}`);
  const pythonImage = await pythonDataImage();
  const home = mkdtempSync(join(tmpdir(), 'sandpit-e2e-'));
  const reports = join(REPO_ROOT, 'reports');
  mkdirSync(reports, { recursive: true });
  const logFile = join(reports, 'e2e-serve.log');
  rmSync(logFile, { force: true });
  const index = await startE2ePackageIndex();
  const serve = await startServe({ home, pythonImage, logFile, env: { SANDPIT_PIP_INDEX_URL: index.url, SANDPIT_INSTALL_NETWORK: index.network } });
  const stateFile = join(home, 'e2e-state.json');
  writeFileSync(stateFile, `${JSON.stringify(serve.info, null, 2)}\n`, { mode: 0o600 });
  process.env[STATE_ENV] = stateFile;
  say(`sandpit serve (pid ${serve.info.pid}) at ${serve.info.url}, home ${home}, python image ${pythonImage}, pip index ${index.url} on ${index.network}, ready in ${Date.now() - started} ms; log ${logFile}`);

  return async () => {
    const { clean } = await serve.stop();
    const left = await containersOwnedBy(serve.info.pid);
    await index.stop().catch((error: unknown) => say(`could not stop the package index: ${String(error)}`));
    rmSync(home, { recursive: true, force: true, maxRetries: 3 });
    say(`sandpit serve stopped ${clean ? 'cleanly' : 'with SIGKILL or an error'}; containers left: ${left.length}`);
    if (left.length > 0) throw new Error(`sandpit serve left ${left.length} container(s) behind: ${left.join('; ')}`);
  };
}
