/**
 * The engine's networks, as the egress proxy and the network policies need them. Docker's is
 * src/core/docker/docker-networks.ts.
 */
export interface SandboxNetworks {
  /** Where the engine runs: its networks are on this computer only when it is `local`. */
  readonly endpoint: { kind: 'local' | 'remote'; address: string };
  /** The engine's network with a way out (sessions of the "open" policy). */
  readonly openNetwork: string;
  /** Creates an internal network (no route beyond the host) owned by this instance, so the reaper removes it after a crash; resolves with its id. */
  createInternal(name: string, role: NetworkRole): Promise<string>;
  /** The network's id, name and IPv4 subnets with their gateways, or undefined when there is no such network. */
  inspect(idOrName: string): Promise<NetworkInfo | undefined>;
  remove(id: string): Promise<void>;
}

/** What a network Sandpit makes is for. */
export type NetworkRole = 'egress';

export interface NetworkSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
}

export interface NetworkInfo extends NetworkSummary {
  internal: boolean;
  /** IPAM config entries: `subnet` in CIDR form and the `gateway` address (the host's address on a bridge). */
  subnets: Array<{ subnet: string; gateway?: string }>;
}
