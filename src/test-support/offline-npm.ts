/**
 * npm without the network, for tests that install this project's packed tarball: the prefix gets a
 * package.json that depends on the tarball and a package-lock.json holding exactly the versions (and
 * integrity hashes) this repository's lock holds for its production dependencies, so `npm ci --offline`
 * takes every package from npm's local cache (filled by the repository's own `npm ci`) and never resolves a
 * version. Where this machine can make a network namespace (`unshare --net`, as root), npm runs in one with
 * no interface but a loopback that is down: a cache miss fails at once (ENOTCACHED) instead of fetching.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/** Writes the prefix's package.json and package-lock.json for installing `tarball` offline. */
export async function writeOfflineLock(repo: string, tarball: string, prefix: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string>; bin?: unknown; engines?: unknown };
  const integrity = `sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`;
  const dependencies = { [pkg.name]: `file:${tarball}` };
  const packages: Record<string, unknown> = {
    '': { dependencies },
    [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: `file:${tarball}`, integrity, dependencies: pkg.dependencies ?? {}, bin: pkg.bin, engines: pkg.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev === true || entry.devOptional === true) continue;
    packages[path] = entry;
  }
  await writeFile(join(prefix, 'package.json'), `${JSON.stringify({ private: true, dependencies }, null, 2)}\n`);
  await writeFile(join(prefix, 'package-lock.json'), `${JSON.stringify({ name: 'sandpit-offline-install', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

/** Whether this machine can run a command in a network namespace of its own. */
export const CAN_UNSHARE_NET = ((): boolean => {
  try {
    execFileSync('unshare', ['--net', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
})();

/** `command args` with no network at all where the machine allows it; else as it is (npm's --offline still holds). */
export function withoutNetwork(command: string, args: readonly string[]): { command: string; args: string[] } {
  return CAN_UNSHARE_NET ? { command: 'unshare', args: ['--net', command, ...args] } : { command, args: [...args] };
}

/**
 * npm's settings for an offline install: the cache only (no request is ever made; a miss is ENOTCACHED). The
 * registry stays npm's default: the cache knows each package by the registry address it came from.
 */
export function offlineNpmEnv(cache: string): Record<string, string> {
  return { npm_config_cache: cache, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
}
