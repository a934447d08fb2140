import type { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log';
import { BridgeLink } from './bridge-link';
import type { RunningInstance } from './find-instance';
import { isJsonRpcRequest } from './json-rpc-message';
import { StdioLineTransport } from './stdio-line-transport';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

/**
 * `sandpit mcp` while a Sandpit serves this data folder: forwards JSON-RPC unchanged between our
 * stdin/stdout and `<url>/mcp` (Streamable HTTP with the bearer token), so every run shows in that
 * instance. When the instance restarts, or goes away and comes back, the link reconnects on its own
 * (bridge-link.ts) and the client keeps its connection. Ends the MCP session (its sandboxes stop) and
 * closes both sides when the client ends.
 */
export async function runMcpBridge(
  instance: RunningInstance,
  stdout: Writable,
  log: Logger,
  rediscover: () => Promise<RunningInstance | undefined>,
): Promise<void> {
  const stdio = new StdioLineTransport(process.stdin, stdout);
  const link = new BridgeLink(instance, rediscover, log);

  const forward = (message: JSONRPCMessage): Promise<void> =>
    link.send(message).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      log.warn('could not forward a message to Sandpit', { url: link.url, error: why });
      if (isJsonRpcRequest(message)) {
        stdio
          .send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32603, message: why.startsWith('Sandpit at ') || why.startsWith('The connection to Sandpit') ? why : `Sandpit at ${link.url} did not take the request: ${why}` },
          })
          .catch(() => undefined);
      }
    });
  // Messages after initialize wait until its POST has answered, so they carry the MCP session id (a client may
  // send them before it has read the initialize result). After that they go out at once, in order, unawaited —
  // a cancel must never wait behind a long run.
  let initialized: Promise<void> = Promise.resolve();
  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJsonRpcRequest(message) && message.method === 'initialize') {
      initialized = forward(message);
      return;
    }
    void initialized.then(() => forward(message));
  };
  link.onmessage = (message: JSONRPCMessage) => {
    stdio
      .send(message)
      .catch((error: unknown) =>
        log.warn('could not write to stdout', { error: error instanceof Error ? error.message : String(error) }),
      );
  };
  stdio.onerror = (error) => log.warn('stdio transport error', { error: error.message });

  await stdio.start();
  log.info('bridging stdio to the running Sandpit', { url: instance.url });
  const reason = await untilStdioEnd(stdio.ended);
  log.info('bridge ending', { reason });
  await whileShuttingDown(async () => {
    await link.close().catch(() => undefined);
    await stdio.close().catch(() => undefined);
  });
}
