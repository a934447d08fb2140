import { SandpitError } from '../../shared/api/errors';
import { allowedHostsFromUrls } from './egress-allow-list';
import { startEgressGateway } from './egress-gateway';
import type { EgressGateway, EgressGatewayOptions } from './egress-gateway';

export interface LazyEgressGateway {
  /** The running gateway, started on first use; concurrent callers share one start, and a failed start is retried by the next call. */
  get(): Promise<EgressGateway>;
  /** The gateway if it is running, else undefined (never starts it). */
  current(): EgressGateway | undefined;
  /** Resolves once a start in flight has ended, well or not (never starts one, never throws). */
  settled(): Promise<void>;
  /** Why the last start failed, in plain words (e.g. a remote engine), while it is not running; else undefined. */
  failure(): string | undefined;
  /** New allow-list for the running gateway and for a later start; throws INVALID_INPUT (and keeps the old one) on a bad entry. */
  setAllowed(urls: string[], extraHosts: string[]): void;
  /** Stops the gateway if it was started (waiting for a start in flight); later `get` calls fail. */
  close(): Promise<void>;
  /** Stops the gateway if it was started; a later `get` starts a new one (on another engine). */
  reset(): Promise<void>;
}

/**
 * Starts the egress gateway only when something needs it (a `packages` session or an install),
 * so a core whose engine is down at start-up, or that never uses the policy, creates no network.
 */
export function lazyEgressGateway(
  options: EgressGatewayOptions,
  start: (options: EgressGatewayOptions) => Promise<EgressGateway> = startEgressGateway,
): LazyEgressGateway {
  let settings = { allowedUrls: options.allowedUrls, extraHosts: options.extraHosts };
  let starting: Promise<EgressGateway> | undefined;
  let running: EgressGateway | undefined;
  let failed: string | undefined;
  let closed = false;

  const get = (): Promise<EgressGateway> => {
    if (closed) return Promise.reject(new SandpitError('CONFLICT', 'The egress gateway is shut down.'));
    starting ??= start({ ...options, ...settings }).then(
      (gateway) => {
        running = gateway;
        failed = undefined;
        return gateway;
      },
      (error: unknown) => {
        starting = undefined;
        failed = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    return starting;
  };

  return {
    get,
    current: (): EgressGateway | undefined => running,
    settled: async (): Promise<void> => {
      await starting?.catch(() => undefined);
    },
    failure: (): string | undefined => (running ? undefined : failed),
    setAllowed: (urls: string[], extraHosts: string[]): void => {
      if (running) running.setAllowed(urls, extraHosts);
      else allowedHostsFromUrls(urls, extraHosts);
      settings = { allowedUrls: urls, extraHosts };
    },
    close: async (): Promise<void> => {
      closed = true;
      const pending = starting;
      if (!pending) return;
      const gateway = await pending.catch(() => undefined);
      await gateway?.close();
    },
    reset: async (): Promise<void> => {
      const pending = starting;
      starting = undefined;
      running = undefined;
      failed = undefined;
      const gateway = await pending?.catch(() => undefined);
      await gateway?.close();
    },
  };
}
