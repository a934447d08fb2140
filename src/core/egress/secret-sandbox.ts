import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CA_TRUST_ENV } from '../sandbox/sandbox-paths';
import { writeFileAtomic } from '../util/atomic-write';
import type { SecretUse } from '../../shared/domain/secret';
import { secretPlaceholder } from '../../shared/domain/secret';
import type { SecretAuthority } from './secret-ca';

/**
 * What a sandbox that may use secrets gets: a variable per secret holding its placeholder (never the value),
 * and every common TLS client pointed at the bundle of the system CAs plus this instance's CA.
 */
export function secretSandboxEnv(uses: readonly SecretUse[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const use of uses) env[use.envVar] = secretPlaceholder(use.name);
  return { ...env, ...CA_TRUST_ENV };
}

/**
 * Writes the CA bundle (public certificates only: the CA's key stays in this process) to its own folder of the
 * instance's runtime dir, readable by the sandbox user, and returns that folder (bound read-only in sandboxes).
 */
export async function writeCaBundle(instanceDir: string, authority: SecretAuthority): Promise<string> {
  const dir = join(instanceDir, 'egress-ca');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  const file = join(dir, 'ca-bundle.pem');
  await writeFileAtomic(file, authority.bundle());
  await chmod(file, 0o644);
  return dir;
}
