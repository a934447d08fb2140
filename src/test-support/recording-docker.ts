import type { BuildOptions, ContainerSpec, DockerClient } from '../core/docker/docker-client';

export interface RecordingDocker {
  /** Pass this to createSandpit / startTestSandpit: the real client, with container creations recorded. */
  docker: DockerClient;
  /** Every container spec asked for, in order (createContainer and runToCompletion alike). */
  readonly created: ContainerSpec[];
  /** The recorded specs whose `dev.sandpit.role` label is `role` (e.g. `installer`). */
  withRole(role: string): ContainerSpec[];
  /** The image tags built, in order. */
  readonly builds: string[];
  /** The options of every build, in order (build args included). */
  readonly buildOptions: BuildOptions[];
}

/** Wraps a DockerClient so tests can see which containers were asked for, with their argv. */
export function recordingDocker(inner: DockerClient): RecordingDocker {
  const created: ContainerSpec[] = [];
  const builds: string[] = [];
  const buildOptions: BuildOptions[] = [];
  const docker = new Proxy(inner, {
    get(target, property, receiver): unknown {
      if (property === 'buildImage') {
        return (context: Buffer, options: BuildOptions, onLog?: (line: string) => void): Promise<void> => {
          builds.push(options.tag);
          buildOptions.push(structuredClone(options));
          return target.buildImage(context, options, onLog);
        };
      }
      if (property === 'createContainer' || property === 'runToCompletion') {
        const original = Reflect.get(target, property, target) as (spec: ContainerSpec, ...rest: unknown[]) => Promise<unknown>;
        return (spec: ContainerSpec, ...rest: unknown[]): Promise<unknown> => {
          created.push(structuredClone(spec));
          return original.call(target, spec, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    docker,
    created,
    builds,
    buildOptions,
    withRole: (role) => created.filter((s) => s.labels['dev.sandpit.role'] === role),
  };
}
