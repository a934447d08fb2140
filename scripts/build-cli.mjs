/**
 * Bundles the headless CLI (src/cli/index.ts) into out/cli/index.mjs for Node 24. Dependencies stay in
 * node_modules (packages: 'external'); `node:` builtins stay builtins. Source files that find things
 * relative to themselves (import.meta.url/dirname/filename, e.g. the executor-image directory) keep
 * pointing at their source location, so the bundle behaves like `tsx src/cli/index.ts`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src', 'cli', 'index.ts');
const outfile = join(root, 'out', 'cli', 'index.mjs');

if (!existsSync(entry)) {
  process.stderr.write(`build-cli: ${relative(root, entry)} does not exist yet, so there is no CLI to bundle.\n`);
  process.exit(0);
}

const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;

/** Rewrites import.meta.* in our own sources to the source file's location, expressed relative to the bundle. */
const sourceLocationPlugin = {
  name: 'sandpit-source-location',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.(ts|tsx|mts|js|mjs)$/ }, async (args) => {
      if (!args.path.startsWith(join(root, 'src') + sep)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!IMPORT_META.test(text)) return undefined;
      const fromBundle = relative(dirname(outfile), args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      const contents = text.replace(IMPORT_META, (_match, what) => {
        if (what === 'url') return `(${url})`;
        if (what === 'filename') return `__sandpitFileURLToPath(${url})`;
        return `__sandpitDirname(__sandpitFileURLToPath(${url}))`;
      });
      return {
        contents,
        loader: args.path.endsWith('x') ? 'tsx' : args.path.endsWith('ts') ? 'ts' : 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

const banner = [
  '#!/usr/bin/env node',
  "import { createRequire as __sandpitCreateRequire } from 'node:module';",
  "import { fileURLToPath as __sandpitFileURLToPath } from 'node:url';",
  "import { dirname as __sandpitDirname } from 'node:path';",
  'const require = __sandpitCreateRequire(import.meta.url);',
].join('\n');

const started = Date.now();
try {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: banner },
    plugins: [sourceLocationPlugin],
  });
  const warnings = result.warnings.length > 0 ? ` (${result.warnings.length} warnings)` : '';
  process.stderr.write(`build-cli: wrote ${relative(root, outfile)} in ${Date.now() - started} ms${warnings}\n`);
} catch {
  // esbuild has already printed the errors.
  process.stderr.write('build-cli: the CLI bundle failed to build\n');
  process.exitCode = 1;
}
