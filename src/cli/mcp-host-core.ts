import { toErrorBody } from '../shared/api/errors';
import type { Sandpit } from '../core/app';
import { clientRegistryOn } from '../core/connect/client-registry';
import type { ClientRegistry } from '../core/connect/client-registry';
import { EventBus } from '../core/events/event-bus';
import { createLogger } from '../core/log';
import type { Logger } from '../core/log';

/** The core `sandpit mcp` hosts, starting, with what the MCP server shares with it. */
export interface HostedCore {
  core: Promise<Sandpit>;
  bus: EventBus;
  clients: ClientRegistry;
  logger: Logger;
}

/**
 * Starts the core (and with it the first sandbox) at once, before the MCP server loads: a client's first call
 * sent right after `tools/list` waits for a container to start, the slowest step of all, and the engine works
 * on it while the server loads. Only these few small modules load first; the core's own load as it is asked for.
 */
export function startHostedCore(): HostedCore {
  const logger = createLogger({ app: 'sandpit' });
  const log = logger.child({ component: 'mcp-stdio' });
  const bus = new EventBus();
  const clients = clientRegistryOn(bus);
  const core = (async (): Promise<Sandpit> => {
    const [{ bootSandpit }, { mcpHandOverMs }] = await Promise.all([import('../core/boot'), import('../core/config')]);
    // An assistant starts `sandpit mcp` again and again: each one leaves its warm sandboxes for the next (warm-handover.ts).
    const { sandpit, notes } = await bootSandpit({ logger, bus, clients, overrides: { handOverMs: mcpHandOverMs() } });
    for (const note of notes) log.warn(note);
    return sandpit;
  })();
  core.catch((error: unknown) => log.error('the core did not start', { error: toErrorBody(error).message }));
  return { core, bus, clients, logger };
}
