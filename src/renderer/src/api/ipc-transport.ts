import { SandpitError } from '../../../shared/api/errors';
import type { SandpitBridge, Transport } from '../../../shared/api/transport';

/** The desktop app's transport: the preload's `window.sandpit` bridge. */
export function createIpcTransport(bridge: SandpitBridge): Transport {
  return {
    kind: 'ipc',
    async invoke(method, input) {
      try {
        return await bridge.invoke(method, input);
      } catch (error) {
        // Only when main could not answer at all (still starting, shutting down, or a value IPC cannot carry).
        const detail = error instanceof Error ? error.message : String(error);
        throw new SandpitError('INTERNAL', `The Sandpit app did not answer. Try again in a moment. (${detail})`);
      }
    },
    subscribe: (listener) => bridge.subscribe(listener),
  };
}
