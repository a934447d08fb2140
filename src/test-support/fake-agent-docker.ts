import { PassThrough } from 'node:stream';
import type { AttachedStreams, ContainerState, DockerClient } from '../core/docker/docker-client';
import type { HostMessage } from '../core/sandbox/protocol';

/** What the fake agent in a container does with a request; `reply` writes one JSON line to the host; `language` is the one its container was made for. */
export type FakeAgentBehaviour = (message: HostMessage, reply: (message: Record<string, unknown>) => void, language: string) => void;

/** Answers hello (as the language its container was made for), finishes every execution at once with `ok`, ignores interrupts. */
export const promptAgent: FakeAgentBehaviour = (message, reply, language) => {
  if (message.type === 'hello') reply({ type: 'hello', id: message.id, language, version: '3', pid: 1, protocol: 1 });
  if (message.type === 'execute') reply({ type: 'done', id: message.id, status: 'ok', durationMs: 1 });
};

interface FakeContainer {
  running: boolean;
  /** SANDPIT_LANGUAGE of its spec: what its agent answers hello with. */
  language: string;
  /** The agent's end of the attached stdout while attached (ended when the container stops). */
  agentOut?: PassThrough;
}

export interface FakeAgentDocker {
  /** An engine for ContainerSession over the `attach` channel: volumes, containers, attach; anything else throws. */
  docker: DockerClient;
  containers: Map<string, FakeContainer>;
  /** Every call, by method name, in order. */
  calls: string[];
  /** Calls replaced by the test (a stuck or failing engine); they win over the fake's own. */
  override: Partial<DockerClient>;
  /** What every agent does; change it at any time. */
  behaviour: FakeAgentBehaviour;
}

/** An in-memory engine whose containers run a scripted agent speaking the JSON-lines protocol on the attached streams. */
export function fakeAgentDocker(): FakeAgentDocker {
  const containers = new Map<string, FakeContainer>();
  const calls: string[] = [];
  const override: Partial<DockerClient> = {};
  let created = 0;
  const fake: FakeAgentDocker = { docker: undefined as unknown as DockerClient, containers, calls, override, behaviour: promptAgent };

  const stop = (id: string): void => {
    const container = containers.get(id);
    if (!container) return;
    container.running = false;
    container.agentOut?.end();
    container.agentOut = undefined;
  };

  const attach = (id: string): AttachedStreams => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let buffered = '';
    stdin.setEncoding('utf8');
    stdin.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        fake.behaviour(
          JSON.parse(line) as HostMessage,
          (message) => {
            if (!stdout.writableEnded) stdout.write(`${JSON.stringify(message)}\n`);
          },
          containers.get(id)?.language ?? 'python',
        );
      }
    });
    const streams: AttachedStreams = { stdin, stdout, stderr, close: () => stdout.end() };
    const container = containers.get(id);
    if (container) container.agentOut = stdout;
    return streams;
  };

  const own: Partial<DockerClient> = {
    endpoint: { kind: 'remote', address: 'fake' },
    ping: async () => ({ product: 'docker', version: 'fake', apiVersion: '1.47', os: 'linux', runtimes: ['runc'] }),
    createVolume: async (spec) => spec.name,
    removeVolume: async () => undefined,
    createContainer: async (spec) => {
      const id = `fake-${++created}`;
      containers.set(id, { running: false, language: spec.env.SANDPIT_LANGUAGE ?? 'python' });
      return id;
    },
    startContainer: async (id) => {
      const container = containers.get(id);
      if (!container) throw new Error(`no container ${id}`);
      container.running = true;
    },
    attachContainer: async (id) => attach(id),
    killContainer: async (id) => stop(id),
    removeContainer: async (id) => {
      stop(id);
      containers.delete(id);
    },
    inspectContainer: async (id): Promise<ContainerState> => {
      const container = containers.get(id);
      if (!container) throw new Error(`no container ${id}`);
      return { id, running: container.running, status: container.running ? 'running' : 'exited', exitCode: container.running ? 0 : 137, oomKilled: false, pid: 1, labels: {} };
    },
  };

  fake.docker = new Proxy(own, {
    get(target, key: string | symbol) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      const method = (override[key as keyof DockerClient] ?? target[key as keyof DockerClient]) as unknown;
      if (method === undefined) throw new Error(`fakeAgentDocker: ${key} is not faked`);
      if (typeof method !== 'function') return method;
      return (...args: unknown[]): unknown => {
        calls.push(key);
        return (method as (...a: unknown[]) => unknown)(...args);
      };
    },
  }) as DockerClient;
  return fake;
}
