import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Client certificates for a TLS engine (paths, as the docker CLI keeps them). */
export interface EngineTls {
  ca?: string;
  cert?: string;
  key?: string;
  /** Whether the engine's certificate is checked against `ca` (DOCKER_TLS_VERIFY, a context's SkipTLSVerify). */
  verify: boolean;
}

/** One Docker engine the way the docker CLI would find it, and where it was found. */
export interface EngineCandidate {
  /** `unix:///path`, `tcp://host:port`, `ssh://user@host[:port]`, or `npipe:////./pipe/name`. */
  host: string;
  /** How it was found, in plain words: "the Sandpit setting", "DOCKER_HOST", "docker context \"colima\"", "Docker Desktop" … */
  source: string;
  tls?: EngineTls;
}

export interface DiscoveryEnv {
  env: NodeJS.ProcessEnv;
  /** The user's home folder (default: os.homedir()). */
  home?: string;
  platform?: NodeJS.Platform;
  /** Whether a socket file exists (tests fake it). */
  exists?: (path: string) => Promise<boolean>;
}

const DEFAULT_SOCKET = '/var/run/docker.sock';

async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** The sockets of the engines people run, where each product puts it. */
function productSockets(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Array<{ path: string; source: string }> {
  const runtime = env.XDG_RUNTIME_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return [
    { path: join(home, '.docker', 'run', 'docker.sock'), source: 'Docker Desktop' },
    ...(platform === 'linux' ? [{ path: join(home, '.docker', 'desktop', 'docker.sock'), source: 'Docker Desktop' }] : []),
    { path: join(home, '.colima', 'default', 'docker.sock'), source: 'Colima' },
    { path: join(home, '.colima', 'docker.sock'), source: 'Colima' },
    { path: join(home, '.rd', 'docker.sock'), source: 'Rancher Desktop' },
    { path: join(home, '.orbstack', 'run', 'docker.sock'), source: 'OrbStack' },
    ...(runtime ? [{ path: join(runtime, 'docker.sock'), source: 'rootless Docker' }, { path: join(runtime, 'podman', 'podman.sock'), source: 'Podman' }] : []),
    ...(uid !== undefined && uid !== 0 ? [{ path: `/run/user/${uid}/podman/podman.sock`, source: 'Podman' }] : []),
    { path: '/run/podman/podman.sock', source: 'Podman' },
  ];
}

/** Where Docker engines' sockets live on this machine (the default one and each product's), whether they exist or not. */
export function engineSocketPaths(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  return [DEFAULT_SOCKET, '/run/docker.sock', ...productSockets(home, env, platform).map((s) => s.path)];
}

/** The docker CLI's config folder: DOCKER_CONFIG, else ~/.docker. */
function configDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.DOCKER_CONFIG ?? join(home, '.docker');
}

/** The endpoint of a docker context, from its meta.json (and its TLS files, when it has them). */
async function contextEndpoint(name: string, env: NodeJS.ProcessEnv, home: string, exists: (path: string) => Promise<boolean>): Promise<EngineCandidate | undefined> {
  const source = `docker context "${name}"`;
  if (name === 'default') return undefined; // the CLI's built-in context: DOCKER_HOST or the default socket
  const id = createHash('sha256').update(name).digest('hex');
  const dir = configDir(env, home);
  try {
    const meta = JSON.parse(await readFile(join(dir, 'contexts', 'meta', id, 'meta.json'), 'utf8')) as {
      Endpoints?: { docker?: { Host?: string; SkipTLSVerify?: boolean } };
    };
    const endpoint = meta.Endpoints?.docker;
    if (!endpoint?.Host) return undefined;
    const tlsDir = join(dir, 'contexts', 'tls', id, 'docker');
    const tlsFiles = { ca: join(tlsDir, 'ca.pem'), cert: join(tlsDir, 'cert.pem'), key: join(tlsDir, 'key.pem') };
    const hasTls = (await exists(tlsFiles.cert)) && (await exists(tlsFiles.key));
    return { host: endpoint.Host, source, ...(hasTls ? { tls: { ...tlsFiles, verify: endpoint.SkipTLSVerify !== true } } : {}) };
  } catch {
    return undefined;
  }
}

/** The context the CLI uses: DOCKER_CONTEXT, else config.json's currentContext. */
async function currentContext(env: NodeJS.ProcessEnv, home: string): Promise<string | undefined> {
  if (env.DOCKER_CONTEXT) return env.DOCKER_CONTEXT;
  try {
    const config = JSON.parse(await readFile(join(configDir(env, home), 'config.json'), 'utf8')) as { currentContext?: string };
    return config.currentContext;
  } catch {
    return undefined;
  }
}

/** DOCKER_HOST with DOCKER_TLS_VERIFY / DOCKER_CERT_PATH, as the CLI reads them. */
function fromDockerHost(env: NodeJS.ProcessEnv, home: string): EngineCandidate | undefined {
  const host = env.DOCKER_HOST?.trim();
  if (!host) return undefined;
  const certPath = env.DOCKER_CERT_PATH;
  const verify = env.DOCKER_TLS_VERIFY !== undefined && env.DOCKER_TLS_VERIFY !== '' && env.DOCKER_TLS_VERIFY !== '0';
  const dir = certPath ?? configDir(env, home);
  const tls = verify || certPath ? { ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), verify } : undefined;
  return { host, source: 'DOCKER_HOST', ...(tls && host.startsWith('tcp://') ? { tls } : {}) };
}

/**
 * Every engine this machine points at, in the docker CLI's order — the Sandpit setting, DOCKER_HOST,
 * DOCKER_CONTEXT or the CLI's current context, the default socket — then the sockets of Docker Desktop,
 * Colima, Rancher Desktop, OrbStack, rootless Docker and Podman that exist. The first is the one to use.
 */
export async function discoverEngines(setting: string | undefined, options: DiscoveryEnv): Promise<EngineCandidate[]> {
  const env = options.env;
  const home = options.home ?? homedir();
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? fileExists;
  const found: EngineCandidate[] = [];
  const add = (candidate: EngineCandidate | undefined): void => {
    if (candidate && !found.some((c) => c.host === candidate.host)) found.push(candidate);
  };
  if (setting?.trim()) add({ host: setting.trim(), source: 'the Sandpit setting' });
  add(fromDockerHost(env, home));
  const context = await currentContext(env, home);
  if (context) add(await contextEndpoint(context, env, home, exists));
  if (platform === 'win32') add({ host: 'npipe:////./pipe/docker_engine', source: 'the default pipe' });
  else if (await exists(DEFAULT_SOCKET)) add({ host: `unix://${DEFAULT_SOCKET}`, source: 'the default socket' });
  for (const socket of productSockets(home, env, platform)) if (await exists(socket.path)) add({ host: `unix://${socket.path}`, source: socket.source });
  // Nothing at all: the default socket, so the message names where Docker was looked for.
  if (found.length === 0) add({ host: platform === 'win32' ? 'npipe:////./pipe/docker_engine' : `unix://${DEFAULT_SOCKET}`, source: 'the default socket' });
  return found;
}
