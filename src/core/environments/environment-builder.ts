import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Environment, EnvironmentBase, EnvironmentStatus, EnvironmentView } from '../../shared/domain/environment';
import type { EventBus } from '../events/event-bus';
import { packFiles } from '../files/safe-tar';
import type { Logger } from '../log';
import type { SandboxImages } from '../sandbox/sandbox-images';
import type { InstallDiagnosis } from '../../shared/domain/packages';
import { diagnoseInstall } from '../installers/install-diagnosis';
import { MANAGER_TOOLS } from '../installers/installers';
import { IMAGE_ORDER, PACKAGE_MANAGERS, allPackages, indexUrlOf } from '../../shared/domain/package-managers';
import type { IndexSetting } from '../../shared/domain/package-managers';
import { environmentDockerfile, failedPackageFrom } from './environment-dockerfile';
import { definitionHash } from './environment-hash';
import type { EnvironmentStore } from './environment-store';

/** What a build installs from: each manager's index (the registry's index settings), and how it gets there. */
export interface BuildSettings extends Record<IndexSetting, string> {
  /** Network the build's RUN steps use (reaches the package indexes, directly or through the proxy). */
  buildNetwork?: string;
  /** Proxy variables for the build's RUN steps (HTTP_PROXY …, with a credential for this build), when installs go through the egress proxy. */
  proxyEnv?: Record<string, string>;
  /** Called once the build is over, whatever its outcome (revokes the build's proxy credential). Must not throw. */
  release?(): void;
}

export interface EnvironmentBuilderDeps {
  images: SandboxImages;
  store: EnvironmentStore;
  bus: EventBus;
  log: Logger;
  /** The executor image of a base flavour (built on demand). */
  baseImage(base: EnvironmentBase): Promise<string>;
  /** The executor image tag a base flavour has now, without building anything (undefined: not built). */
  baseImageIfBuilt(base: EnvironmentBase): Promise<string | undefined>;
  settings(): BuildSettings | Promise<BuildSettings>;
}

/**
 * Builds environments to images tagged by the hash of what goes into them: an unchanged definition
 * is never built twice, a failed build names the package that failed and keeps the last good image.
 * One build per environment at a time; concurrent callers share it.
 */
export class EnvironmentBuilder {
  private readonly running = new Map<string, Promise<Environment>>();
  /** Image tags known to exist (images are never removed behind a running Sandpit's back). */
  private readonly existing = new Set<string>();

  constructor(private readonly deps: EnvironmentBuilderDeps) {}

  /** The tag an environment's image has (or will have) for its current definition. */
  async targetTag(env: Environment): Promise<{ tag: string; hash: string; base: string; needsBuild: boolean }> {
    return tagFor(env, await this.deps.baseImage(env.base));
  }

  /** The environment with its status now (never builds). */
  async view(env: Environment): Promise<EnvironmentView> {
    return { ...env, status: await this.status(env) };
  }

  /** Whether sessions can start from it now, in plain words (never builds anything). */
  async status(env: Environment): Promise<EnvironmentStatus> {
    if (this.running.has(env.id)) {
      return { state: 'building', message: `"${env.name}" is being built; sessions start once it is ready.` };
    }
    if ((await this.readyImage(env)) !== undefined) return { state: 'ready', message: 'Ready: sessions start at once.' };
    if (failedSinceEdit(env)) {
      const fix = env.build?.diagnosis?.fixes[0] ?? 'Change its packages in the Environments screen and build it again.';
      return { state: 'failed', message: `The last build failed: ${env.build?.error ?? 'unknown error'} ${fix}` };
    }
    return { state: 'not-built', message: 'Not built yet: it is built when a session first needs it (this can take a minute).' };
  }

  /**
   * The image sessions of this environment start from when it is ready (built, or needing no build, and there):
   * nothing is built or written (`imageFor` records it). Undefined when it is not ready, or being built.
   */
  async readyImage(env: Environment): Promise<string | undefined> {
    if (this.running.has(env.id)) return undefined;
    const base = await this.deps.baseImageIfBuilt(env.base).catch(() => undefined);
    const target = base === undefined ? undefined : tagFor(env, base);
    if (target && (env.image?.tag === target.tag || !target.needsBuild) && (await this.exists(target.tag))) return target.tag;
    return undefined;
  }

  /**
   * The image to start sessions of this environment from, building it first when it is stale
   * (`onLog` follows the build). A definition that failed to build is refused with the reason, also
   * when an older image exists: a session never silently runs on something else than what was asked.
   */
  async imageFor(environmentId: string, onLog?: (line: string, step?: number, steps?: number) => void): Promise<string> {
    const stop = onLog
      ? this.deps.bus.on('environment.buildLog', (event) => {
          if (event.environmentId === environmentId) onLog(event.line, event.step, event.steps);
        })
      : undefined;
    let env: Environment;
    try {
      env = await this.ensureBuilt(environmentId);
    } finally {
      stop?.();
    }
    const target = await this.targetTag(env);
    if (env.image?.tag !== target.tag) {
      const why = (env.build?.error ?? 'unknown error').replace(/\.$/, '');
      const fix = env.build?.diagnosis?.fixes[0] ?? 'Change its packages in the Environments screen and build it again';
      throw new SandpitError('INVALID_INPUT', `The environment "${env.name}" could not be built: ${why}. ${fix.replace(/\.$/, '')} — or use another environment.`, {
        failedPackage: env.build?.failedPackage,
        diagnosis: env.build?.diagnosis,
      });
    }
    return env.image.tag;
  }

  /** Builds when the last good image does not match the current definition. */
  async ensureBuilt(environmentId: string): Promise<Environment> {
    const env = await this.deps.store.get(environmentId);
    const target = await this.targetTag(env);
    if (env.image?.tag === target.tag && (await this.exists(target.tag))) return env;
    // A definition that failed to build and has not changed since is not retried on every session.
    if (failedSinceEdit(env)) return env;
    return this.build(environmentId, false);
  }

  /** Forgets which images exist (another engine has other images). */
  forget(): void {
    this.existing.clear();
  }

  private async exists(tag: string): Promise<boolean> {
    if (this.existing.has(tag)) return true;
    const found = await this.deps.images.exists(tag);
    if (found) this.existing.add(tag);
    return found;
  }

  build(environmentId: string, force: boolean): Promise<Environment> {
    let pending = this.running.get(environmentId);
    if (!pending) {
      pending = this.run(environmentId, force).finally(() => this.running.delete(environmentId));
      this.running.set(environmentId, pending);
    }
    return pending;
  }

  private async run(environmentId: string, force: boolean): Promise<Environment> {
    const { images, store, bus, log } = this.deps;
    const env = await store.get(environmentId);
    const target = await this.targetTag(env);
    const startedAt = new Date().toISOString();
    const emit = async (e: Environment): Promise<Environment> => {
      bus.emit('environment.updated', await this.view(e));
      return e;
    };
    const logLine = (line: string): void => {
      const step = /^Step (\d+)\/(\d+)/.exec(line);
      bus.emit('environment.buildLog', { environmentId, line, step: step ? Number(step[1]) : undefined, steps: step ? Number(step[2]) : undefined });
    };

    if (!target.needsBuild || (!force && (await images.exists(target.tag)))) {
      logLine(target.needsBuild ? `${target.tag} is up to date` : `no packages to install: sessions use ${target.tag}`);
      const built = await store.setBuilt(environmentId, { tag: target.tag, hash: target.hash, builtAt: startedAt }, { state: 'ready', startedAt, finishedAt: new Date().toISOString() });
      this.existing.add(target.tag);
      return emit(built);
    }

    await emit(await store.setBuild(environmentId, { state: 'building', startedAt }));
    const lines: string[] = [];
    let settings: BuildSettings | undefined;
    try {
      settings = await this.deps.settings();
      const dockerfile = environmentDockerfile(env, target.base, settings);
      const context = await packFiles([{ path: 'Dockerfile', content: Buffer.from(dockerfile) }], { maxFileBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024 });
      log.info('building environment', { environmentId, image: target.tag });
      await images.build(
        { context, tag: target.tag, buildArgs: settings.proxyEnv, network: settings.buildNetwork, environment: { id: environmentId, hash: target.hash } },
        (line) => {
          lines.push(line);
          if (lines.length > 2_000) lines.shift();
          logLine(line);
        },
      );
      const finishedAt = new Date().toISOString();
      const built = await store.setBuilt(environmentId, { tag: target.tag, hash: target.hash, builtAt: finishedAt }, { state: 'ready', startedAt, finishedAt });
      this.existing.add(target.tag);
      return emit(built);
    } catch (error) {
      const message = toErrorBody(error).message;
      const diagnosis = diagnoseBuild(env, [...lines, message], settings);
      const failedPackage = diagnosis.cause === 'unreachable' ? undefined : (failedPackageFrom(lines, env) ?? (diagnosis.affected.length === 1 ? diagnosis.affected[0] : undefined));
      log.warn('environment build failed', { environmentId, error: message, cause: diagnosis.cause });
      logLine(`build failed: ${diagnosis.summary}`);
      // The last good image (env.image) stays as it was; the raw log's end stays one click away.
      return emit(
        await store.setBuild(environmentId, {
          state: 'failed',
          error: diagnosis.summary.slice(0, 2_000),
          failedPackage,
          diagnosis,
          logTail: [...lines, message].slice(-200).map((l) => l.slice(0, 2_000)),
          startedAt,
          finishedAt: new Date().toISOString(),
        }),
      );
    } finally {
      settings?.release?.();
    }
  }
}

/** The image tag of a definition on a base image; an environment without packages runs on the base itself. */
function tagFor(env: Environment, base: string): { tag: string; hash: string; base: string; needsBuild: boolean } {
  const hash = definitionHash(env, base);
  if (allPackages(env.packages).length === 0) return { tag: base, hash, base, needsBuild: false };
  return { tag: `sandpit/env-${env.id}:${hash.slice(0, 12)}`, hash, base, needsBuild: true };
}

/**
 * Why a build failed: the manager whose step failed (the last `RUN` step the log names; the languages' managers
 * are asked before the system's, which they may build through), else the first language manager with packages
 * listed (else apt), and its installer's words — or the words of the installer its builds run through.
 */
function diagnoseBuild(env: Environment, lines: string[], settings: BuildSettings | undefined): InstallDiagnosis {
  const log = lines.join('\n');
  const failedStep = [...lines].reverse().find((l) => /^Step \d+\/\d+ : RUN /.test(l)) ?? '';
  const listed = IMAGE_ORDER.filter((m) => env.packages[m].length > 0);
  const owner = [...listed].reverse().find((m) => MANAGER_TOOLS[m].ownsStep(failedStep)) ?? listed.find((m) => PACKAGE_MANAGERS[m].layer === 'language') ?? 'apt';
  const through = MANAGER_TOOLS[owner].buildsThrough;
  const manager = through?.manager ?? owner;
  const packages = through ? env.packages[owner].map((spec) => through.name(spec)) : env.packages[owner];
  const indexUrl = settings ? indexUrlOf(manager, settings) : undefined;
  return diagnoseInstall({ manager, log, packages, ...(indexUrl ? { indexUrl } : {}) });
}

/** A definition that failed to build and has not changed since is not retried on every session. */
function failedSinceEdit(env: Environment): boolean {
  return env.build?.state === 'failed' && (env.build.finishedAt ?? '') >= env.updatedAt;
}
