import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Environment, EnvironmentBase } from '../../shared/domain/environment';
import type { EventBus } from '../api/event-bus';
import type { DockerClient } from '../docker/docker-client';
import { LABEL } from '../docker/labels';
import { packFiles } from '../files/safe-tar';
import type { Logger } from '../log';
import { environmentDockerfile, failedPackageFrom } from './environment-dockerfile';
import { definitionHash } from './environment-hash';
import type { EnvironmentStore } from './environment-store';

export interface BuildSettings {
  pipIndexUrl: string;
  npmRegistryUrl: string;
  /** Network the build's RUN steps use (reaches the package indexes, directly or through the proxy). */
  buildNetwork?: string;
  /** Proxy variables for the build's RUN steps (HTTP_PROXY …), when installs go through the egress proxy. */
  proxyEnv?: Record<string, string>;
}

export interface EnvironmentBuilderDeps {
  docker: DockerClient;
  store: EnvironmentStore;
  bus: EventBus;
  log: Logger;
  /** The executor image of a base flavour (built on demand). */
  baseImage(base: EnvironmentBase): Promise<string>;
  settings(): BuildSettings;
}

/**
 * Builds environments to images tagged by the hash of what goes into them: an unchanged definition
 * is never built twice, a failed build names the package that failed and keeps the last good image.
 * One build per environment at a time; concurrent callers share it.
 */
export class EnvironmentBuilder {
  private readonly running = new Map<string, Promise<Environment>>();

  constructor(private readonly deps: EnvironmentBuilderDeps) {}

  /** The tag an environment's image has (or will have) for its current definition. */
  async targetTag(env: Environment): Promise<{ tag: string; hash: string; base: string; needsBuild: boolean }> {
    const base = await this.deps.baseImage(env.base);
    const hash = definitionHash(env, base);
    const { pip, npm, apt } = env.packages;
    if (pip.length + npm.length + apt.length === 0) return { tag: base, hash, base, needsBuild: false };
    return { tag: `sandpit/env-${env.id}:${hash.slice(0, 12)}`, hash, base, needsBuild: true };
  }

  /** The image to start sessions of this environment from, building it first when it is stale. */
  async imageFor(environmentId: string): Promise<string> {
    const env = await this.ensureBuilt(environmentId);
    // After a failed build the last good image stays usable; without one there is nothing to start.
    if (!env.image) {
      throw new SandpitError('INVALID_INPUT', `The environment "${env.name}" could not be built: ${env.build?.error ?? 'unknown error'}`, {
        failedPackage: env.build?.failedPackage,
      });
    }
    if (env.build?.state === 'failed') this.deps.log.warn('using the last good image of an environment whose build failed', { environmentId, image: env.image.tag });
    return env.image.tag;
  }

  /** Builds when the last good image does not match the current definition. */
  async ensureBuilt(environmentId: string): Promise<Environment> {
    const env = await this.deps.store.get(environmentId);
    const target = await this.targetTag(env);
    if (env.image?.tag === target.tag && (await this.deps.docker.imageExists(target.tag))) return env;
    // A definition that failed to build and has not changed since is not retried on every session.
    const failedAfterEdit = env.build?.state === 'failed' && (env.build.finishedAt ?? '') >= env.updatedAt;
    if (failedAfterEdit) return env;
    return this.build(environmentId, false);
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
    const { docker, store, bus, log } = this.deps;
    const env = await store.get(environmentId);
    const target = await this.targetTag(env);
    const startedAt = new Date().toISOString();
    const emit = (e: Environment): Environment => {
      bus.emit('environment.updated', e);
      return e;
    };
    const logLine = (line: string): void => {
      const step = /^Step (\d+)\/(\d+)/.exec(line);
      bus.emit('environment.buildLog', { environmentId, line, step: step ? Number(step[1]) : undefined, steps: step ? Number(step[2]) : undefined });
    };

    if (!target.needsBuild || (!force && (await docker.imageExists(target.tag)))) {
      logLine(target.needsBuild ? `${target.tag} is up to date` : `no packages to install: sessions use ${target.tag}`);
      await store.setImage(environmentId, { tag: target.tag, hash: target.hash, builtAt: startedAt });
      return emit(await store.setBuild(environmentId, { state: 'ready', startedAt, finishedAt: new Date().toISOString() }));
    }

    emit(await store.setBuild(environmentId, { state: 'building', startedAt }));
    const lines: string[] = [];
    try {
      const settings = this.deps.settings();
      const dockerfile = environmentDockerfile(env, target.base, settings);
      const context = await packFiles([{ path: 'Dockerfile', content: Buffer.from(dockerfile) }], { maxFileBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024 });
      log.info('building environment', { environmentId, image: target.tag });
      await docker.buildImage(
        context,
        {
          tag: target.tag,
          buildArgs: settings.proxyEnv,
          networkMode: settings.buildNetwork,
          labels: { [LABEL.managed]: 'true', [LABEL.role]: 'environment', 'dev.sandpit.environment': environmentId, 'dev.sandpit.environment-hash': target.hash },
        },
        (line) => {
          lines.push(line);
          if (lines.length > 2_000) lines.shift();
          logLine(line);
        },
      );
      await store.setImage(environmentId, { tag: target.tag, hash: target.hash, builtAt: new Date().toISOString() });
      return emit(await store.setBuild(environmentId, { state: 'ready', startedAt, finishedAt: new Date().toISOString() }));
    } catch (error) {
      const failedPackage = failedPackageFrom(lines, env);
      const message = toErrorBody(error).message;
      const reason = failedPackage ? `installing "${failedPackage}" failed: ${message}` : message;
      log.warn('environment build failed', { environmentId, error: reason });
      logLine(`build failed: ${reason}`);
      // The last good image (env.image) stays as it was: sessions can still use it.
      return emit(await store.setBuild(environmentId, { state: 'failed', error: reason.slice(0, 2_000), failedPackage, startedAt, finishedAt: new Date().toISOString() }));
    }
  }
}
