import type { EnvironmentView } from '../../shared/domain/environment';
import type { Language } from '../../shared/domain/languages';
import type { ManagerId } from '../../shared/domain/package-managers';

/** One environment as `GET /list-envs` gives it: what `POST /execute {env}` takes, and whether it is ready. */
export interface RestEnvironment {
  id: string;
  name: string;
  language: Language;
  description: string;
  /** Keyed by package manager (package-managers.ts: pip, npm, apt, …). */
  packages: Record<ManagerId, string[]>;
  network: 'none' | 'packages' | 'open';
  status: 'ready' | 'building' | 'failed' | 'not-built';
  status_message: string;
}

export function restEnvironment(env: EnvironmentView): RestEnvironment {
  return {
    id: env.id,
    name: env.name,
    language: env.language,
    description: env.description ?? '',
    packages: env.packages,
    network: env.network,
    status: env.status.state,
    status_message: env.status.message,
  };
}
