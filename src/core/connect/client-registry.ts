import type { ConnectedClient } from '../../shared/domain/connect';
import type { EventBus } from '../events/event-bus';
import { assistantOfClientName } from './assistant-targets';

export type ClientInfo = Omit<ConnectedClient, 'connectedAt'>;

/**
 * The MCP clients connected now (fed by the HTTP mount and the stdio host when a client has
 * initialized and when it goes). Every change is reported with the whole list.
 */
export class ClientRegistry {
  private readonly clients = new Map<number, ConnectedClient>();
  private readonly seenNames = new Set<string>();
  private nextKey = 0;

  constructor(private readonly onChange: (clients: ConnectedClient[]) => void = () => undefined) {}

  /** Records a client; returns its removal (safe to call more than once). */
  add(info: ClientInfo): () => void {
    const key = this.nextKey++;
    const assistant = info.assistant ?? assistantOfClientName(info.name);
    this.clients.set(key, { ...info, ...(assistant ? { assistant } : {}), connectedAt: new Date().toISOString() });
    this.seenNames.add(info.name);
    this.onChange(this.list());
    return () => {
      if (this.clients.delete(key)) this.onChange(this.list());
    };
  }

  /** Every name a client has connected with since this registry began, first seen first (gone ones too). */
  seen(): string[] {
    return [...this.seenNames];
  }

  /** Oldest first. */
  list(): ConnectedClient[] {
    return [...this.clients.values()].map((c) => ({ ...c }));
  }
}

/** A registry that reports every change on the bus as `clients.changed`. */
export function clientRegistryOn(bus: EventBus): ClientRegistry {
  return new ClientRegistry((list) => bus.emit('clients.changed', { clients: list }));
}
