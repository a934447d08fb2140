/**
 * A sandbox container under the same hardened profile as a session, whose unix-socket agent channel
 * belongs to the benchmark: no session manager, no ContainerSession, just `connectUnixChannel`.
 */
import { randomUUID } from 'node:crypto';
import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandpit } from '../src/core/app';
import { hardenedContainerSpec } from '../src/core/docker/container-profile';
import { sessionLabels } from '../src/core/docker/labels';
import type { AgentChannel } from '../src/core/sandbox/agent-channel';
import type { AgentMessage } from '../src/core/sandbox/protocol';
import { connectUnixChannel } from '../src/core/sandbox/unix-socket-channel';

const SANDBOX_UID = 10001;

export interface RawReply {
  result?: string;
  /** How long the agent says the execution took (inside the container). */
  agentMs: number;
}

export interface RawAgent {
  containerId: string;
  channel: AgentChannel;
  /** Sends `execute` and resolves once `done` arrives: the `result` text and the agent's own `durationMs`. */
  execute(code: string): Promise<RawReply>;
  /** A `hello` round trip: the channel and the agent's reader/writer threads, no execution. */
  hello(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the container, connects and completes the hello handshake. Labelled with the core's instance, so its reaper owns leftovers. */
export async function startRawAgent(sandpit: Sandpit, image: string): Promise<RawAgent> {
  const { docker, config, identity } = sandpit;
  const id = `bench-${randomUUID().slice(0, 8)}`;
  const labels = sessionLabels(identity, id);
  const volume = `sandpit-ws-${id}`;
  const agentDir = join(config.runRoot, identity.instanceId, id);
  let containerId = '';
  let channel: AgentChannel | undefined;
  const close = async (): Promise<void> => {
    channel?.close();
    if (containerId) await docker.removeContainer(containerId).catch(() => undefined);
    await docker.removeVolume(volume).catch(() => undefined);
    await rm(agentDir, { recursive: true, force: true });
  };
  try {
    await docker.createVolume({ name: volume, labels });
    await mkdir(agentDir, { recursive: true, mode: 0o700 });
    await chown(agentDir, SANDBOX_UID, SANDBOX_UID);
    await chmod(agentDir, 0o700);
    containerId = await docker.createContainer(
      hardenedContainerSpec({ name: `sandpit-${id}`, image, limits: config.defaultLimits, labels, workspaceVolume: volume, agentHostDir: agentDir }),
    );
    await docker.startContainer(containerId);
    const ch = await connectUnixChannel(join(agentDir, 'agent.sock'), config.startTimeoutMs);
    channel = ch;

    const pending = new Map<string, { result?: string; resolve: (reply: RawReply) => void; reject: (error: Error) => void }>();
    ch.onMessage((message: AgentMessage) => {
      const waiter = pending.get(message.id);
      if (!waiter) return;
      if (message.type === 'result') waiter.result = message.text;
      else if (message.type === 'hello') {
        pending.delete(message.id);
        waiter.resolve({ agentMs: 0 });
      } else if (message.type === 'done') {
        pending.delete(message.id);
        if (message.status === 'ok') waiter.resolve({ result: waiter.result, agentMs: message.durationMs });
        else waiter.reject(new Error(`raw run ended with status ${message.status}`));
      }
    });
    ch.onClose((reason) => {
      for (const w of pending.values()) w.reject(new Error(`raw channel closed (${reason ?? 'clean'})`));
      pending.clear();
    });
    let counter = 0;
    const request = (message: { type: 'hello' } | { type: 'execute'; code: string }): Promise<RawReply> =>
      new Promise((resolve, reject) => {
        const rid = `r${++counter}`;
        pending.set(rid, { resolve, reject });
        if (message.type === 'hello') ch.send({ type: 'hello', id: rid });
        else ch.send({ type: 'execute', id: rid, code: message.code, outputLimit: config.defaultLimits.outputBytes });
      });
    await request({ type: 'hello' });
    return {
      containerId,
      channel: ch,
      execute: (code) => request({ type: 'execute', code }),
      hello: async () => {
        await request({ type: 'hello' });
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
