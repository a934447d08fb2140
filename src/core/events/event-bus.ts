import { EventEmitter } from 'node:events';
import type { EventName, EventPayload } from '../../shared/api/contract';

export type EventListener<E extends EventName> = (payload: EventPayload<E>) => void;
export type AnyEventListener = (name: EventName, payload: EventPayload<EventName>) => void;

/** The typed bus that live events travel on (to MCP progress, IPC and SSE). Listeners never throw into emitters. */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    for (const listener of this.emitter.listeners(name)) safeCall(() => (listener as EventListener<E>)(payload));
    for (const listener of this.emitter.listeners('*')) safeCall(() => (listener as AnyEventListener)(name, payload));
  }

  on<E extends EventName>(name: E, listener: EventListener<E>): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  onAny(listener: AnyEventListener): () => void {
    this.emitter.on('*', listener);
    return () => this.emitter.off('*', listener);
  }
}

function safeCall(run: () => void): void {
  try {
    run();
  } catch {
    // A faulty listener must not break the engine; listeners log their own failures.
  }
}
