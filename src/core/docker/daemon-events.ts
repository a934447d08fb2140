import type { Logger } from '../log';
import type { DockerClient, EngineEvent } from './docker-client';
import { LABEL } from './labels';

/**
 * Follows the engine's container events for this instance: remembers `oom` events per container
 * (State.OOMKilled stays false when only a child is killed) and reports when the stream is lost.
 */
export class DaemonEvents {
  private readonly ooms = new Map<string, number[]>();
  private stop: (() => void) | undefined;
  private readonly lostListeners: Array<(error?: Error) => void> = [];
  private readonly eventListeners: Array<(event: EngineEvent) => void> = [];

  constructor(
    private readonly docker: DockerClient,
    private readonly instanceId: string,
    private readonly log: Logger,
  ) {}

  get following(): boolean {
    return this.stop !== undefined;
  }

  /** Kept sessions' containers, made by an earlier core (their instance label is that core's): followed too. */
  private readonly adopted = new Set<string>();

  /** Follows a container made by an earlier instance (a kept session taken over after a restart). */
  follow(containerId: string): void {
    this.adopted.add(containerId);
  }

  async start(): Promise<void> {
    this.stop?.();
    this.stop = await this.docker.watchEvents(
      { [LABEL.managed]: 'true' },
      (event) => this.handle(event),
      (error) => {
        if (!this.stop) return;
        this.stop = undefined;
        this.log.warn('lost the engine event stream', { error: error?.message });
        for (const l of this.lostListeners) l(error);
      },
    );
  }

  onLost(listener: (error?: Error) => void): void {
    this.lostListeners.push(listener);
  }

  onEvent(listener: (event: EngineEvent) => void): void {
    this.eventListeners.push(listener);
  }

  /** Whether the engine reported an OOM kill in this container at or after `sinceMs`. */
  oomSince(containerId: string, sinceMs: number): boolean {
    return (this.ooms.get(containerId) ?? []).some((t) => t >= sinceMs - 1_000);
  }

  /** Polls briefly for an oom event (it can arrive just after the container's streams close). */
  async waitForOom(containerId: string, sinceMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.oomSince(containerId, sinceMs)) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.oomSince(containerId, sinceMs);
  }

  forget(containerId: string): void {
    this.ooms.delete(containerId);
    this.adopted.delete(containerId);
  }

  close(): void {
    const stop = this.stop;
    this.stop = undefined;
    stop?.();
  }

  private handle(event: EngineEvent): void {
    // Only this instance's containers, and the kept ones it took over (every Sandpit's are labelled managed).
    if (event.labels[LABEL.instance] !== this.instanceId && !this.adopted.has(event.id)) return;
    if (event.action === 'oom') {
      const list = this.ooms.get(event.id) ?? [];
      list.push(Date.now());
      this.ooms.set(event.id, list.slice(-10));
    }
    for (const l of this.eventListeners) l(event);
  }
}
