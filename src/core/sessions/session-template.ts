import type { Isolation } from '../../shared/domain/isolation';
import type { Limits } from '../../shared/domain/limits';
import type { Language } from '../../shared/domain/languages';

/**
 * Container variables, or a function of the session id (e.g. the egress proxy URL with the session's
 * credential). A function's variables differ per sandbox, so they never tell warm pools apart.
 */
export type ContainerEnv = Record<string, string> | ((sessionId: string) => Record<string, string>);

/** Everything that makes two sessions interchangeable: a warm pool holds sandboxes of one template. */
export interface SessionTemplate {
  language: Language;
  image: string;
  limits: Limits;
  network?: string;
  env?: ContainerEnv;
  isolation: Isolation;
  /** Secrets (issue 18): a host folder holding the CA bundle, mounted read-only (such a session never comes from a pool). */
  caDir?: string;
}
