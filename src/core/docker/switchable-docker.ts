import type { DockerClient } from './docker-client';

export interface SwitchableDocker {
  /** The client everything holds: each call goes to the engine in use at that moment. */
  client: DockerClient;
  /** From the next call on, every call goes to `next`. */
  use(next: DockerClient): void;
  current(): DockerClient;
}

/**
 * One DockerClient whose engine can change while Sandpit runs (a new address in Settings), so that the
 * backend, the image builder, the event follower and the reaper switch together without being rebuilt.
 */
export function switchableDocker(initial: DockerClient): SwitchableDocker {
  let current = initial;
  const client = new Proxy({} as DockerClient, {
    get: (_target, name: string | symbol) => {
      const value = (current as unknown as Record<string | symbol, unknown>)[name];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    client,
    use: (next) => {
      current = next;
    },
    current: () => current,
  };
}
