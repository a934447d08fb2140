import { SandpitError } from '../../shared/api/errors';
import type { PartialLimits } from '../../shared/domain/limits';
import { DEFAULT_LANGUAGE, LANGUAGE_ENTRIES, languageLabel, packageManagerOf, withArticle } from '../../shared/domain/languages';
import type { Language } from '../../shared/domain/languages';
import { findEnvironment } from '../environments/environment-lookup';
import { isolationOf } from './environment-services';
import { secretsRefusal, sessionConnection } from './session-connection';
import type { EnvironmentServices } from './environment-services';
import { parsePackageSpecs } from '../installers/package-specs';
import type { PackageSpec } from '../installers/package-specs';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/session-manager';
import { prepareReviewLayers, shareFolders } from '../folders/share-folders';
import type { FolderSharing } from '../folders/folder-sharing';

export interface NewSessionRequest {
  /** By id or name; default: the language's built-in environment. */
  environment?: string;
  language?: Language;
  name?: string;
  limits?: PartialLimits;
  idleTtlMs?: number;
  /** Keep it across a restart of Sandpit. */
  keep?: boolean;
  client?: string;
  owner?: string;
  /** Secrets the person ticked for this session, by name, besides its environment's (checked here, before anything starts). */
  secrets?: readonly string[];
  /** Packages to install before the session is handed out (validated here, before anything starts). */
  dependencies?: string[];
  /** What the environment's shared folders are checked against. */
  sharing: FolderSharing;
  /** Told how a build of the environment goes, when one is needed first. */
  onProgress?(what: string, step?: number, steps?: number): void;
}

/**
 * The one way a session is made, on every surface: its environment (named, or the language's built-in
 * one) gives the image (built first when needed), the language, the limits and the network.
 */
export async function openSession(
  sessions: SessionManager,
  environments: EnvironmentServices,
  request: NewSessionRequest,
): Promise<{ session: Session; dependencies: PackageSpec[] }> {
  const reference = request.environment ?? LANGUAGE_ENTRIES[request.language ?? DEFAULT_LANGUAGE].defaultEnvironment;
  const env = await findEnvironment(environments.store, reference);
  if (request.language && request.language !== env.language) {
    throw new SandpitError(
      'INVALID_INPUT',
      `The environment "${env.name}" is for ${languageLabel(env.language)}, not ${languageLabel(request.language)}: leave the language out, or pick ${withArticle(languageLabel(request.language))} environment.`,
    );
  }
  // Secrets and dependencies are validated before any container starts (as packages.install does).
  const secretsProblem = await secretsRefusal(env, request.secrets ?? [], environments.secrets);
  if (secretsProblem) throw new SandpitError('INVALID_INPUT', secretsProblem);
  const dependencies = parsePackageSpecs(request.dependencies ?? [], packageManagerOf(env.language));
  // Checked again now (a folder may be gone, the protected list may have grown): a refused one starts nothing.
  const checked = await shareFolders(env.folders ?? [], request.sharing);
  // An engine that is down is said at once, not after each image lookup has waited out its timeout.
  sessions.assertEngineUp();
  const folders = await prepareReviewLayers(checked, request.sharing);
  const status = await environments.builder.status(env);
  if (status.state !== 'ready') request.onProgress?.(`building the environment "${env.name}"`);
  const image = await environments.builder.imageFor(env.id, (line, step, steps) =>
    request.onProgress?.(`building "${env.name}"${step ? ` (step ${step} of ${steps})` : ''}: ${line.slice(0, 200)}`, step, steps),
  );
  const connection = await sessionConnection(env.network, env.id, environments, request.secrets);
  const session = await sessions.create({
    language: env.language,
    image,
    environment: { id: env.id, name: env.name },
    baseLimits: env.limits,
    limits: request.limits,
    networkPolicy: env.network,
    isolation: isolationOf(env, environments),
    ...connection,
    ...(request.name ? { name: request.name } : {}),
    client: request.client,
    owner: request.owner,
    idleTtlMs: request.idleTtlMs,
    ...(request.keep ? { keep: true } : {}),
    ...(folders.length ? { folders } : {}),
  });
  return { session, dependencies };
}
