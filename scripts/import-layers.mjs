/* eslint-disable @typescript-eslint/explicit-module-boundary-types -- plain JS: the types are in import-layers.d.mts */
/**
 * Who may import whom (docs/architecture.md, "Rooms"): each room of src/core and the rooms it may import
 * besides itself. eslint.config.mjs turns the table into `no-restricted-imports` rules, so an import across a
 * layer fails `npm run lint` (and so `npm test`). Tests are not held to it: integration tests build the
 * Docker implementation under the rooms they test.
 */

/** Rooms of src/core: a folder, or a file of src/core itself (`boot` is every boot*.ts). */
export const CORE_LAYERS = {
  // The ground: nothing of the core below them.
  sandbox: [],
  util: [],
  events: [],
  replay: [],
  version: [],
  log: [],
  home: [],
  'check-result': [],
  // $SANDPIT_HOME/instance.json (where a running core serves) and owner.lock (one core per data folder).
  'instance-file': [],
  'home-lock': ['instance-file', 'util'],
  config: ['home'],
  files: ['util'],
  folders: ['sandbox', 'util'],
  installers: ['log', 'sandbox'],
  approvals: ['events', 'log', 'util'],
  audit: ['log', 'installers', 'sandbox'],
  connect: ['events', 'home', 'log'],
  notebook: ['files'],
  importers: ['installers'],
  // The engine: implements the ports of sandbox/; never reaches up into what uses them.
  docker: ['sandbox', 'files', 'folders', 'installers', 'config', 'log', 'util', 'check-result'],
  sessions: ['sandbox', 'config', 'events', 'files', 'folders', 'log', 'installers', 'util'],
  snapshots: ['sessions', 'folders', 'util'],
  // Previews of what a sandbox serves (issue 17): a tunnel over the session's channel, an origin of its own.
  previews: ['sandbox', 'sessions', 'events', 'log', 'util'],
  egress: ['sandbox', 'events', 'log', 'installers', 'util'],
  environments: ['sandbox', 'egress', 'config', 'events', 'files', 'log', 'installers', 'util'],
  // Opening a session: an environment (or the language's built-in one) made into a session; each caller's default sessions; the warm defaults.
  'session-opening': ['config', 'egress', 'environments', 'events', 'folders', 'installers', 'log', 'sessions'],
  settings: ['egress', 'config', 'log', 'util'],
  // The API: everything below but the engine's implementation.
  api: ['approvals', 'audit', 'config', 'connect', 'egress', 'environments', 'events', 'files', 'folders', 'importers', 'log', 'notebook', 'replay', 'previews', 'installers', 'session-opening', 'sessions', 'settings', 'snapshots', 'util'],
  // The surfaces: the API and the composed core; never the engine, never a session directly.
  http: ['api', 'app', 'connect', 'events', 'instance-file', 'log', 'version'],
  mcp: ['api', 'app', 'events', 'http', 'log', 'notebook', 'util', 'version'],
  // The composition roots: the only rooms above docker/ that may import it.
  app: ['api', 'approvals', 'audit', 'config', 'connect', 'docker', 'egress', 'environments', 'events', 'files', 'folders', 'home-lock', 'log', 'previews', 'sandbox', 'session-opening', 'sessions', 'settings', 'util'],
  boot: ['app', 'boot-images', 'boot-checks', 'check-result', 'config', 'docker', 'log', 'settings', 'util'],
};

const ELECTRON = { name: 'electron', message: 'core, shared and cli never import electron' };
const DOCKERODE = { name: 'dockerode', message: 'only src/core/docker/ talks to the Docker engine' };
const TESTS = ['**/*.test.ts', '**/*.test.tsx'];

/** A rule forbidding imports whose specifier names one of these rooms, as seen from a file of src/core. */
function coreRule(room, allowed) {
  const names = Object.keys(CORE_LAYERS).flatMap((name) => (name === 'boot' ? ['boot', 'boot-images', 'boot-checks'] : [name]));
  const own = room === 'boot' ? ['boot', 'boot-images', 'boot-checks'] : [room];
  const forbidden = names.filter((name) => !own.includes(name) && !allowed.includes(name) && !(allowed.includes('boot') && name.startsWith('boot')));
  const patterns = [
    // ./docker/x from a file of src/core, ../docker/x (or ../../docker/x) from a room's folder.
    { regex: `^(\\./|(\\.\\./)+)(${forbidden.join('|')})(/|$)`, message: `src/core/${room} may import only ${allowed.length ? allowed.join(', ') : 'src/shared'} of the core (scripts/import-layers.mjs)` },
    { regex: '^(\\.\\./)+(main|renderer|preload|cli)(/|$)', message: 'the core never imports the desktop app, the panel or the CLI' },
  ];
  return ['error', { paths: room === 'docker' ? [ELECTRON] : [ELECTRON, DOCKERODE], patterns }];
}

/** The flat-config entries that enforce the layers. */
export function layerConfigs() {
  const core = Object.entries(CORE_LAYERS).map(([room, allowed]) => ({
    files: room === 'boot' ? ['src/core/boot*.ts'] : [`src/core/${room}/**/*.{ts,tsx}`, `src/core/${room}.ts`],
    ignores: TESTS,
    rules: { 'no-restricted-imports': coreRule(room, allowed) },
  }));
  const outsideCore = (message) => [
    { regex: '(^|/)core/docker(/|$)', message: `${message}: the engine is reached through src/core/boot.ts and the core's ports` },
  ];
  return [
    ...core,
    {
      files: ['src/shared/**/*.{ts,tsx}'],
      ignores: TESTS,
      rules: {
        'no-restricted-imports': ['error', { paths: [ELECTRON, DOCKERODE], patterns: [{ regex: '^node:', message: 'src/shared runs in the panel too: no Node modules' }, { regex: '^(\\.\\./)+(core|main|renderer|preload|cli)(/|$)', message: 'src/shared imports nothing of the rooms that use it' }] }],
      },
    },
    {
      files: ['src/cli/**/*.ts'],
      ignores: TESTS,
      rules: { 'no-restricted-imports': ['error', { paths: [ELECTRON, DOCKERODE], patterns: outsideCore('the CLI') }] },
    },
    {
      files: ['src/main/**/*.ts'],
      ignores: TESTS,
      rules: { 'no-restricted-imports': ['error', { paths: [DOCKERODE], patterns: outsideCore('the desktop app') }] },
    },
    {
      files: ['src/renderer/**/*.{ts,tsx}', 'src/preload/**/*.ts'],
      ignores: TESTS,
      rules: { 'no-restricted-imports': ['error', { paths: [DOCKERODE], patterns: [{ regex: '^(\\.\\./)+(core|main|cli)(/|$)', message: 'the panel talks to the core only through the contract (src/shared/api)' }] }] },
    },
  ];
}
