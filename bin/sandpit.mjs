#!/usr/bin/env node
/**
 * The `sandpit` command. Runs the bundled CLI (out/cli/index.mjs, from `npm run build:cli`) when it is
 * there and not older than the sources; otherwise runs src/cli/index.ts through tsx.
 * SANDPIT_FROM_SOURCE=1 always runs the sources.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
// node:module is imported whole: a named import of something older Node lacks would fail before the version check below.
import nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(
    `Sandpit needs Node.js ${REQUIRED_MAJOR} or newer, but this is Node.js ${process.versions.node}.\n` +
      `Install Node.js ${REQUIRED_MAJOR} (https://nodejs.org, or "nvm install ${REQUIRED_MAJOR}") and run the command again.\n`,
  );
  process.exit(1);
}

// V8 keeps the compiled code of the CLI between runs (in the OS's temporary folder): a cold start is mostly compiling.
nodeModule.enableCompileCache();

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'out', 'cli', 'index.mjs');
const source = join(root, 'src', 'cli', 'index.ts');

/** Newest modification time of the TypeScript sources (0 when there are none, e.g. an installed package). */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function useBundle() {
  if (process.env.SANDPIT_FROM_SOURCE === '1' || !existsSync(bundle)) return false;
  if (!existsSync(source)) return true;
  return statSync(bundle).mtimeMs >= newestSource(join(root, 'src'));
}

if (useBundle()) {
  await import(pathToFileURL(bundle).href);
} else if (existsSync(source)) {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'sandpit: the CLI is not built and tsx is not installed. Run "npm install" and "npm run build:cli", then try again.\n',
    );
    process.exit(1);
  }
  register();
  await import(pathToFileURL(source).href);
} else {
  process.stderr.write('sandpit: the CLI is missing. Run "npm run build:cli" in the Sandpit folder, then try again.\n');
  process.exit(1);
}
