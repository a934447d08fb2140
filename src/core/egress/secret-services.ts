import { join } from 'node:path';
import type { SecretUse } from '../../shared/domain/secret';
import type { Logger } from '../log';
import type { EgressGatewayOptions } from './egress-gateway';
import { createSecretAuthority } from './secret-ca';
import type { SecretAuthority } from './secret-ca';
import { keyFileCipher } from './secret-cipher';
import type { SecretCipher } from './secret-cipher';
import { secretHostMatches } from './secret-hosts';
import { writeCaBundle } from './secret-sandbox';
import { SecretStore } from './secret-store';

export interface SecretServices {
  store: SecretStore;
  /** The gateway's secrets option. */
  gateway: NonNullable<EgressGatewayOptions['secrets']>;
  /** What environments tell sessions (EnvironmentServices.secrets). */
  environments: { usesOf(environmentId: string): Promise<SecretUse[]>; caDir(): Promise<string> };
  /** The host names a session's secrets may go to (they join its allowed hosts). */
  hostsOf(sessionId: string): readonly string[];
}

/**
 * Secrets (issue 18), composed: the sealed store in the data folder (`secrets.json`, sealed by `cipher`: the OS
 * keychain in the desktop app, else a key file `secrets.key`), this instance's CA (made on first use, in memory),
 * and what the egress gateway and the sessions need of them.
 */
export function secretServices(deps: {
  home: string;
  instanceDir: string;
  cipher?: SecretCipher;
  /** The environment of a live session. */
  environmentOf(sessionId: string): string | undefined;
  onUsed(event: { host: string; port: number; time: string; sessionId: string; secrets: string[] }): void;
  /** Secrets were saved, deleted or detached: their names (never a value). */
  onChanged?: (names: string[]) => void;
  /** More upstream CAs: tests only. */
  upstreamCa?: readonly string[];
  log: Logger;
}): SecretServices {
  const store = new SecretStore({
    path: join(deps.home, 'secrets.json'),
    cipher: deps.cipher ?? keyFileCipher(join(deps.home, 'secrets.key')),
    ...(deps.onChanged ? { onChange: deps.onChanged } : {}),
  });
  let authority: SecretAuthority | undefined;
  const theAuthority = (): SecretAuthority => (authority ??= createSecretAuthority());
  let caDir: Promise<string> | undefined;
  void store.list().catch((error: unknown) => deps.log.warn('the secrets file could not be read', { message: error instanceof Error ? error.message : String(error) }));
  return {
    store,
    gateway: {
      get authority(): SecretAuthority {
        return theAuthority();
      },
      secretsFor: async (sessionId, host, port) => {
        const environmentId = deps.environmentOf(sessionId);
        if (environmentId === undefined) return [];
        return (await store.usable(environmentId)).filter((s) => s.hosts.some((h) => secretHostMatches(h, host, port)));
      },
      onUsed: (event) => deps.onUsed(event),
      ...(deps.upstreamCa ? { upstreamCa: deps.upstreamCa } : {}),
    },
    environments: {
      usesOf: (environmentId) => store.usesOf(environmentId),
      caDir: () => (caDir ??= writeCaBundle(deps.instanceDir, theAuthority()).catch((error: unknown) => {
        caDir = undefined;
        throw error;
      })),
    },
    hostsOf: (sessionId) => {
      const environmentId = deps.environmentOf(sessionId);
      return environmentId === undefined ? [] : store.loadedHostsOf(environmentId);
    },
  };
}
