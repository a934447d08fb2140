import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDPIT_CA_BUNDLE } from '../sandbox/sandbox-paths';
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
  return {
    ...env,
    SSL_CERT_FILE: SANDPIT_CA_BUNDLE,
    REQUESTS_CA_BUNDLE: SANDPIT_CA_BUNDLE,
    CURL_CA_BUNDLE: SANDPIT_CA_BUNDLE,
    NODE_EXTRA_CA_CERTS: SANDPIT_CA_BUNDLE,
    PIP_CERT: SANDPIT_CA_BUNDLE,
    npm_config_cafile: SANDPIT_CA_BUNDLE,
  };
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
