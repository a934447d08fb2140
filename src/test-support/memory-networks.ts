import type { NetworkInfo, NetworkRole, SandboxNetworks } from '../core/sandbox/sandbox-networks';

/**
 * The network port in memory, for unit tests of what stands on it (the egress gateway): it records the networks
 * made and removed, and every network it makes is internal with the loopback gateway (127.0.0.1 in 127.0.0.0/8,
 * so a proxy listening there stays on this machine) unless `shape` says otherwise.
 */
export class MemoryNetworks implements SandboxNetworks {
  endpoint: SandboxNetworks['endpoint'] = { kind: 'local', address: 'memory' };
  readonly openNetwork = 'memory-open';
  /** Every internal network asked for, in order. */
  readonly created: Array<{ name: string; role: NetworkRole }> = [];
  /** The ids of every network removed, in order. */
  readonly removed: string[] = [];
  private readonly networks = new Map<string, NetworkInfo>();

  constructor(private readonly shape: Partial<NetworkInfo> = {}) {}

  async createInternal(name: string, role: NetworkRole): Promise<string> {
    this.created.push({ name, role });
    const id = `net-${this.created.length}`;
    this.networks.set(id, { id, name, labels: {}, internal: true, subnets: [{ subnet: '127.0.0.0/8', gateway: '127.0.0.1' }], ...this.shape });
    return id;
  }

  async inspect(idOrName: string): Promise<NetworkInfo | undefined> {
    return [...this.networks.values()].find((n) => n.id === idOrName || n.name === idOrName);
  }

  async remove(id: string): Promise<void> {
    this.removed.push(id);
    this.networks.delete(id);
  }
}
