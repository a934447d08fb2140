import type { Writable } from 'node:stream';
import { createLogger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';
import { EarlyAnswerTransport } from './early-answer-transport';
import { startHostedCore } from './mcp-host-core';
import { earlyInitializeResult } from './early-initialize';
import { StdioLineTransport } from './stdio-line-transport';

/** How long the server's loading waits for the client's first message (usually `initialize`, sent at once). */
const FIRST_MESSAGE_WAIT_MS = 100;

/**
 * `sandpit mcp` with no Sandpit running: reads stdin at once and answers `initialize` before the MCP SDK,
 * the server and the core are loaded (early-initialize.ts computes the server's own result), then starts the
 * core (mcp-host-core.ts) and loads the server (mcp-host-server.ts), which takes the conversation from the first
 * message on. `stdout` is
 * the guarded JSON-RPC channel.
 */
export async function hostMcpInProcess(stdout: Writable): Promise<void> {
  const log = createLogger({ app: 'sandpit', component: 'mcp-stdio' });
  const stdio = new StdioLineTransport(process.stdin, stdout);
  const transport = new EarlyAnswerTransport(stdio, earlyInitializeResult, (_early, late) =>
    log.warn('the MCP server refused an initialize request answered early', { reply: JSON.stringify(late).slice(0, 500) }),
  );
  await transport.listen();
  // Loading the server holds the event loop (its modules evaluate in one go): stdin is read only when the loop
  // turns. So the server loads once the client's first message is in and answered — or a moment later.
  await withTimeout(transport.firstMessage, FIRST_MESSAGE_WAIT_MS, 'The first message').catch(() => undefined);
  // The core first (its first sandbox starts while the server loads), then the server.
  const hosted = startHostedCore();
  const { serveMcpInProcess } = await import('./mcp-host-server');
  await serveMcpInProcess(transport, stdio.ended, hosted);
}
