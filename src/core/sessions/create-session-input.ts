import type { NetworkPolicy } from '../../shared/domain/environment';
import type { Isolation } from '../../shared/domain/isolation';
import type { Language } from '../../shared/domain/languages';
import type { PartialLimits } from '../../shared/domain/limits';
import type { SecretUse } from '../../shared/domain/secret';
import type { MountedFolder } from '../folders/share-folders';
import type { ContainerEnv } from './session-template';

/** A new session, with its image, limits and network already resolved from its environment by the caller. */
export interface CreateSessionInput {
  language: Language;
  image: string;
  /** The environment it comes from (id and display name). */
  environment?: { id: string; name: string };
  /** What the caller calls it; default: the environment's name (or the language's) and a number. */
  name?: string;
  /** The environment's default limits, under the caller's overrides. */
  baseLimits?: PartialLimits;
  limits?: PartialLimits;
  /** Engine network to join (policies packages or open); absent: none. */
  network?: string;
  networkPolicy?: NetworkPolicy;
  /** Extra container variables (e.g. the egress proxy for policy packages). */
  containerEnv?: ContainerEnv;
  isolation?: Isolation;
  client?: string;
  /** Who may use it (an MCP session, a token); undefined = made in the panel, usable by every client. */
  owner?: string;
  idleTtlMs?: number;
  /** Keep it across a restart of Sandpit (files and packages; not variables). */
  keep?: boolean;
  /** Its environment's folders of the person's computer (checked already): such a session never comes from a warm pool. */
  folders?: readonly MountedFolder[];
  /** Secrets (issue 18): the folder of the CA bundle its sandbox trusts (read-only); such a session starts cold. */
  caDir?: string;
  /** Its secrets, by name and host (what its description shows). */
  secrets?: SecretUse[];
}
