import type { SandpitBridge, Transport } from '../../../shared/api/transport';

/** The desktop app's transport: the preload's `window.sandpit` bridge. */
export function createIpcTransport(bridge: SandpitBridge): Transport {
  return {
    kind: 'ipc',
    invoke: (method, input) => bridge.invoke(method, input),
    subscribe: (listener) => bridge.subscribe(listener),
  };
}
