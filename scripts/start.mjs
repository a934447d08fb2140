/**
 * `npm start`: the desktop app when Electron's binary is installed on this machine (build, then launch);
 * otherwise the same core headless (`sandpit serve`) with the panel in a browser. Never downloads Electron.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/**
 * The Electron executable if it is really there. Reads electron's path.txt the way its index.js does,
 * without requiring it: requiring `electron` under Node starts a download when the binary is missing.
 */
function electronBinary() {
  let packageDir;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = join(packageDir, 'path.txt');
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(packageDir, 'dist');
  if (!relativePath && !process.env.ELECTRON_OVERRIDE_DIST_PATH) return undefined;
  const binary = join(distDir, relativePath || 'electron');
  return existsSync(binary) ? binary : undefined;
}

/**
 * Runs a child with our stdio and resolves with its exit code. On POSIX the child gets its own process
 * group, so a Ctrl-C reaches it exactly once (through us) and it can shut down cleanly; a second signal
 * after 2 s is passed on too (press Ctrl-C again to force).
 */
function run(command, argv) {
  return new Promise((resolveExit) => {
    const posix = process.platform !== 'win32';
    const child = spawn(command, argv, { cwd: root, stdio: 'inherit', detached: posix });
    let lastForward = 0;
    const forward = (signal) => {
      if (Date.now() - lastForward < 2_000) return;
      lastForward = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const signals = posix ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM'];
    for (const signal of signals) process.on(signal, forward);
    child.once('error', (error) => {
      process.stderr.write(`sandpit: could not start ${command}: ${error.message}\n`);
      resolveExit(1);
    });
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolveExit(code ?? (signal ? 1 : 0));
    });
  });
}

// The sandbox images first: a no-op (about a second) when they are up to date.
const images = await run(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'build-images.ts')]);
if (images !== 0) {
  process.stderr.write('sandpit: the sandbox images could not be built (see above); starting anyway — "sandpit doctor" says what is missing.\n');
}

// The panel (and the desktop app's main and preload): the web panel of `sandpit serve` is the same build.
const built = await run(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']);
const electron = electronBinary();
if (built !== 0) {
  process.exitCode = built;
} else if (electron) {
  // `electron <root>` loads package.json's main (out/main/index.js) with the app path at the root,
  // where the app finds out/renderer, out/preload, resources and executor-image.
  process.exitCode = await run(electron, [root, ...args]);
} else {
  process.stderr.write(
    'The Electron binary isn\'t installed on this machine, so Sandpit runs headless: starting "sandpit serve" (open the link it prints in a browser).\n',
  );
  process.exitCode = await run(process.execPath, [join(root, 'bin', 'sandpit.mjs'), 'serve', ...args]);
}
