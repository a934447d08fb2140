import { toErrorBody } from '../shared/api/errors';
import type { Sandpit } from '../core/app';
import { deferredHandlers } from '../core/api/deferred-handlers';
import { clientRegistryOn } from '../core/connect/client-registry';
import { EventBus } from '../core/events/event-bus';
import { createLogger } from '../core/log';
import { initializeRefusal } from '../core/mcp/initialize-refusal';
import { clientNameOf, createMcpServer } from '../core/mcp/create-mcp-server';
import type { SandpitMcpServer } from '../core/mcp/create-mcp-server';
import { withTimeout } from '../core/util/with-timeout';
import type { EarlyAnswerTransport } from './early-answer-transport';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

const DISPOSE_TIMEOUT_MS = 30_000;
/**
 * The core starts this long after the client's `initialized` (loading it holds the event loop for a while,
 * so the `tools/list` a client sends right after is answered first)...
 */
const CORE_START_AFTER_HANDSHAKE_MS = 15;
/** ...or this long after the process started, whichever is first. */
const CORE_START_LATEST_MS = 500;

/**
 * `sandpit mcp` with no Sandpit running, once the MCP server may load (mcp-host.ts has answered
 * `initialize` already): hosts the core in this process and speaks MCP on `transport` (stdin and the
 * guarded stdout). `tools/list` is answered before the core is up — it is loaded and started right behind
 * the handshake, and calls that need it wait for it. When the client goes away (`ended`) the core is
 * disposed: sessions stopped, containers removed.
 */
export async function serveMcpInProcess(transport: EarlyAnswerTransport, ended: Promise<string>): Promise<void> {
  const logger = createLogger({ app: 'sandpit' });
  const log = logger.child({ component: 'mcp-stdio' });
  const bus = new EventBus();
  const clients = clientRegistryOn(bus);
  let startCore!: () => void;
  const coreWanted = new Promise<void>((resolve) => {
    startCore = resolve;
  });
  const core: Promise<Sandpit> = coreWanted.then(async () => {
    // Loaded here, not at the top: the engine client and the core are not needed to answer the handshake.
    const { bootSandpit } = await import('../core/boot');
    const { sandpit, notes } = await bootSandpit({ logger, bus, clients });
    for (const note of notes) log.warn(note);
    return sandpit;
  });
  core.catch((error: unknown) => log.error('the core did not start', { error: toErrorBody(error).message }));
  const principal = `stdio:${process.pid}`;
  const mcp: SandpitMcpServer = createMcpServer({
    sandpit: { api: deferredHandlers(core.then((sandpit) => sandpit.api)), bus, log: logger, clients },
    context: () => ({ transport: 'mcp-stdio', client: clientNameOf(mcp), principal }),
  });
  let untrack: (() => void) | undefined;
  mcp.server.server.oninitialized = () => {
    untrack ??= clients.add({ name: clientNameOf(mcp) ?? 'unnamed client', transport: 'mcp-stdio' });
    setTimeout(startCore, CORE_START_AFTER_HANDSHAKE_MS).unref();
  };
  mcp.server.server.onclose = () => untrack?.();
  transport.onerror = (error) => log.warn('stdio transport error', { error: error.message });
  transport.refuse = initializeRefusal;
  setTimeout(startCore, CORE_START_LATEST_MS).unref();
  try {
    await mcp.server.connect(transport);
    const reason = await untilStdioEnd(ended);
    log.info('MCP client gone; shutting down', { reason });
  } finally {
    await whileShuttingDown(async () => {
      await mcp.close().catch(() => undefined);
      startCore();
      const sandpit = await core.catch(() => undefined);
      if (!sandpit) return;
      await withTimeout(sandpit.dispose(), DISPOSE_TIMEOUT_MS, 'Stopping the sessions').catch((error: unknown) =>
        log.warn('could not dispose the core cleanly', { error: toErrorBody(error).message }),
      );
    });
  }
}
