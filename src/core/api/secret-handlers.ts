import { SandpitError } from '../../shared/api/errors';
import type { SecretStore } from '../egress/secret-store';
import type { EnvironmentStore } from '../environments/environment-store';
import type { SessionManager } from '../sessions/session-manager';
import type { Handlers } from './api-types';

type SecretMethods = 'secrets.list' | 'secrets.save' | 'secrets.delete';

/** The secrets of Settings → Secrets (panel-only in the policy table). No answer ever carries a value. */
export function secretHandlers(
  secrets: SecretStore | undefined,
  environments: Pick<EnvironmentStore, 'get'>,
  sessions: Pick<SessionManager, 'forgetSecret'>,
): Pick<Handlers, SecretMethods> {
  const store = (): SecretStore => {
    if (!secrets) throw new SandpitError('CONFLICT', 'Secrets are not available in this Sandpit.');
    return secrets;
  };
  return {
    'secrets.list': async () => ({ secrets: await store().list(), protection: store().protection }),
    'secrets.save': async (input) => {
      // Attached environments must exist (a typo would leave the secret unused without a word).
      for (const id of input.environments) await environments.get(id);
      return store().save(input);
    },
    'secrets.delete': async ({ name }) => {
      await store().delete(name);
      // Sessions that listed it list it no longer (their requests stopped getting it as it went).
      sessions.forgetSecret(name);
      return { name, deleted: true };
    },
  };
}
