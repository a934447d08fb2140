import { SandpitError } from '../../shared/api/errors';
import type { AgentChannel } from '../sandbox/agent-channel';
import type { HostMessage, RequestReply } from '../sandbox/protocol';

/** Collects one request's replies; returns a value once the request is answered, else undefined (more to come). */
export type ReplyCollector<T> = (reply: RequestReply) => T | undefined;

interface Pending {
  collect: ReplyCollector<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * Requests to the agent that are not executions (file operations, reaping): each has its own id, its
 * replies are routed to it, and it ends in its own time — a timeout, or the channel closing, fails it.
 */
export class AgentRequests {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;

  /** Sends `messages` (all with the same id, made by `build`) and waits for the collector's answer. */
  send<T>(channel: AgentChannel | undefined, build: (id: string) => HostMessage[], collect: ReplyCollector<T>, timeoutMs: number, what: string): Promise<T> {
    if (!channel || channel.closed) return Promise.reject(new SandpitError('CONTAINER_DIED', 'The sandbox is not running; it is being restarted. Try again.'));
    const id = `q${++this.counter}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new SandpitError('EXEC_TIMEOUT', `The sandbox did not answer (${what}) within ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      this.pending.set(id, { collect, resolve: (value) => resolve(value as T), reject, timer });
      try {
        for (const message of build(id)) channel.send(message);
      } catch (error) {
        this.settle(id, () => reject(error instanceof Error ? error : new Error(String(error))));
      }
    });
  }

  /** Routes a reply to its request; a reply nobody waits for is dropped (the agent is untrusted). */
  accept(reply: RequestReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    let value: unknown;
    try {
      value = pending.collect(reply);
    } catch (error) {
      this.settle(reply.id, () => pending.reject(error));
      return;
    }
    if (value !== undefined) this.settle(reply.id, () => pending.resolve(value));
  }

  /** Fails every request in flight (the channel closed). */
  failAll(reason: string): void {
    for (const [id, pending] of [...this.pending]) {
      this.settle(id, () => pending.reject(new SandpitError('CONTAINER_DIED', `The sandbox stopped (${reason}).`)));
    }
  }

  private settle(id: string, finish: () => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    finish();
  }
}
