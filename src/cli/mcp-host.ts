import type { Writable } from 'node:stream';
import { toErrorBody } from '../shared/api/errors';
import { clientNameOf, createMcpServer } from '../core/mcp/create-mcp-server';
import type { SandpitMcpServer } from '../core/mcp/create-mcp-server';
import { withTimeout } from '../core/util/with-timeout';
import { startCore } from './start-core';
import { StdioLineTransport } from './stdio-line-transport';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

const DISPOSE_TIMEOUT_MS = 30_000;

/**
 * `sandpit mcp` with no Sandpit running: hosts the core in this process and speaks MCP on stdin/stdout
 * (`stdout` is the guarded JSON-RPC channel). When the client goes away the core is disposed: sessions
 * stopped, containers removed.
 */
export async function hostMcpInProcess(stdout: Writable): Promise<void> {
  const { sandpit, notes } = await startCore();
  const log = sandpit.log.child({ component: 'mcp-stdio' });
  for (const note of notes) log.warn(note);
  const principal = `stdio:${process.pid}`;
  const mcp: SandpitMcpServer = createMcpServer({
    sandpit,
    context: () => ({ transport: 'mcp-stdio', client: clientNameOf(mcp), principal }),
  });
  let untrack: (() => void) | undefined;
  mcp.server.server.oninitialized = () => {
    untrack ??= sandpit.clients.add({ name: clientNameOf(mcp) ?? 'unnamed client', transport: 'mcp-stdio' });
  };
  mcp.server.server.onclose = () => untrack?.();
  const transport = new StdioLineTransport(process.stdin, stdout);
  transport.onerror = (error) => log.warn('stdio transport error', { error: error.message });
  try {
    await mcp.server.connect(transport);
    const reason = await untilStdioEnd(transport.ended);
    log.info('MCP client gone; shutting down', { reason });
  } finally {
    await whileShuttingDown(async () => {
      await mcp.close().catch(() => undefined);
      await withTimeout(sandpit.dispose(), DISPOSE_TIMEOUT_MS, 'Stopping the sessions').catch((error: unknown) =>
        log.warn('could not dispose the core cleanly', { error: toErrorBody(error).message }),
      );
    });
  }
}
