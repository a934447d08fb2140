/**
 * Bundles the headless CLI (src/cli/index.ts) into out/cli/index.mjs for Node 24, split into chunks that
 * each command loads when it needs them (`sandpit mcp` answers its client before the engine client and
 * the core are loaded). The MCP SDK and zod are bundled in — loading them file by file from node_modules
 * is most of a cold start; every other dependency stays in node_modules. `node:` builtins stay builtins. Source files that find things
 * relative to themselves (import.meta.url/dirname/filename, e.g. the executor-image directory) keep
 * pointing at their source location, so the bundle behaves like `tsx src/cli/index.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src', 'cli', 'index.ts');
const outdir = join(root, 'out', 'cli');
const outfile = join(outdir, 'index.mjs');
/**
 * Bundled: what `sandpit mcp` needs to answer `initialize`, and the engine client (see lazyEngineClientPlugin).
 * The rest stays in node_modules.
 */
const BUNDLED = new Set(['@modelcontextprotocol/sdk', 'zod', 'dockerode']);
const { dependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name)).flatMap((name) => [name, `${name}/*`]);

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

/**
 * The SDK's MCP server imports its Ajv provider for one purpose, checking a client's answer to an
 * elicitation; Sandpit never elicits and gives every server its own validator (NoElicitationValidator),
 * so the bundle takes a provider that would load Ajv only if it were ever made. Loading Ajv is a fifth of
 * `sandpit mcp`'s start.
 */
const AJV_PROVIDER = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;
const lazyAjvPlugin = {
  name: 'sandpit-lazy-ajv',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: AJV_PROVIDER }, () => ({
      contents: [
        "import { createRequire } from 'node:module';",
        'export class AjvJsonSchemaValidator {',
        '  constructor(ajv) {',
        "    const { AjvJsonSchemaValidator: Real } = createRequire(import.meta.url)('@modelcontextprotocol/sdk/validation/ajv');",
        '    return new Real(ajv);',
        '  }',
        '}',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * dockerode loads, as it is required, two things Sandpit needs only in rare cases: gRPC and protobuf for BuildKit
 * sessions (Sandpit's builds do not use them) and ssh2 for an engine at an ssh:// address — about 100 ms of the
 * core's start, before its first call to the engine. The bundle takes dockerode with those two files replaced by
 * ones that load the real file from node_modules (where dockerode stays a dependency) the first time they are
 * called.
 */
const LAZY_ENGINE_FILES = [
  { filter: /[\\/]dockerode[\\/]lib[\\/]session\.js$/, real: 'dockerode/lib/session.js' },
  { filter: /[\\/]docker-modem[\\/]lib[\\/]ssh\.js$/, real: 'docker-modem/lib/ssh.js' },
];
const lazyEngineClientPlugin = {
  name: 'sandpit-lazy-engine-client',
  setup(pluginBuild) {
    for (const { filter, real } of LAZY_ENGINE_FILES) {
      pluginBuild.onLoad({ filter }, () => ({
        contents: [
          "const { createRequire } = require('node:module');",
          'let loaded;',
          // resolved from dockerode's own folder: docker-modem is its dependency, wherever npm put it
          `const load = () => (loaded ??= createRequire(require.resolve('dockerode'))(${JSON.stringify(real)}));`,
          'module.exports = function (...args) {',
          '  return load().apply(this, args);',
          '};',
        ].join('\n'),
        loader: 'js',
      }));
    }
  },
};

/**
 * `import … from 'node:http'` (and https) goes through Node's ESM facade of the builtin, which reads every
 * export — among them the lazy WebSocket/CloseEvent/MessageEvent getters that load undici: 30–80 ms of a
 * cold start, for classes Sandpit never uses. The bundle takes these builtins from
 * process.getBuiltinModule, reading only the exports named here.
 */
const NO_FACADE_BUILTINS = {
  'node:http': ['Agent', 'ClientRequest', 'IncomingMessage', 'METHODS', 'OutgoingMessage', 'STATUS_CODES', 'Server', 'ServerResponse', 'createServer', 'get', 'request', 'validateHeaderName', 'validateHeaderValue'],
  'node:https': ['Agent', 'Server', 'createServer', 'get', 'request'],
};
const noFacadeBuiltinsPlugin = {
  name: 'sandpit-no-facade-builtins',
  setup(pluginBuild) {
    // Imports only: a CommonJS module (docker-modem) gets the builtin itself, whose exports it builds on.
    pluginBuild.onResolve({ filter: /^(node:)?https?$/ }, (args) =>
      args.kind === 'require-call'
        ? undefined
        : {
            path: args.path.startsWith('node:') ? args.path : `node:${args.path}`,
            namespace: 'sandpit-builtin',
          },
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'sandpit-builtin' }, (args) => {
      const names = NO_FACADE_BUILTINS[args.path];
      return {
        contents: [
          `const m = process.getBuiltinModule(${JSON.stringify(args.path)});`,
          'export default m;',
          ...names.map((name) => `export const ${name} = m.${name};`),
        ].join('\n'),
        loader: 'js',
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
  // Chunks of an earlier build would be left beside the new ones.
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { index: entry },
    outdir,
    // In the bundle's own folder: the source locations above are relative to it.
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: banner },
    plugins: [sourceLocationPlugin, lazyAjvPlugin, lazyEngineClientPlugin, noFacadeBuiltinsPlugin],
  });
  const warnings = result.warnings.length > 0 ? ` (${result.warnings.length} warnings)` : '';
  process.stderr.write(`build-cli: wrote ${relative(root, outfile)} in ${Date.now() - started} ms${warnings}\n`);
} catch {
  // esbuild has already printed the errors.
  process.stderr.write('build-cli: the CLI bundle failed to build\n');
  process.exitCode = 1;
}
