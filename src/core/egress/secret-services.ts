import { join } from 'node:path';
import type { Logger } from '../log';
import type { SecretUse } from '../../shared/domain/secret';
import type { EgressGatewayOptions } from './egress-gateway';
import { createSecretAuthority } from './secret-ca';
import type { SecretAuthority } from './secret-ca';
import { keyFileCipher } from './secret-cipher';
import type { SecretCipher } from './secret-cipher';
import { secretHostMatches } from './secret-hosts';
import { writeCaBundle } from './secret-sandbox';
import { SecretStore } from './secret-store';

/**
 * What sessions are told of secrets: what an environment's sessions may use (and one session besides: the names the
 * person ticked for it, a name no secret has left out), which names no secret has, and the folder of the CA bundle.
 */
export interface EnvironmentSecrets {
  usesOf(environmentId: string | undefined, forSession?: readonly string[]): Promise<SecretUse[]>;
  unknown(names: readonly string[]): Promise<string[]>;
  caDir(): Promise<string>;
}

export interface SecretServices {
  store: SecretStore;
  /** The gateway's secrets option. */
  gateway: NonNullable<EgressGatewayOptions['secrets']>;
  /** What environments tell sessions (EnvironmentServices.secrets). */
  environments: EnvironmentSecrets;
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
  /** A live session's environment and the secrets the person ticked for it (by name), or undefined. */
  sessionOf(sessionId: string): { environment?: string; secrets: readonly string[] } | undefined;
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
        const session = deps.sessionOf(sessionId);
        if (session === undefined) return [];
        return (await store.usable(session.environment, session.secrets)).filter((s) => s.hosts.some((h) => secretHostMatches(h, host, port)));
      },
      onUsed: (event) => deps.onUsed(event),
      ...(deps.upstreamCa ? { upstreamCa: deps.upstreamCa } : {}),
    },
    environments: {
      usesOf: (environmentId, forSession) => store.usesOf(environmentId, forSession),
      unknown: (names) => store.unknown(names),
      caDir: () => (caDir ??= writeCaBundle(deps.instanceDir, theAuthority()).catch((error: unknown) => {
        caDir = undefined;
        throw error;
      })),
    },
    hostsOf: (sessionId) => {
      const session = deps.sessionOf(sessionId);
      return session === undefined ? [] : store.loadedHostsOf(session.environment, session.secrets);
    },
  };
}
