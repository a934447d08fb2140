import type { Writable } from 'node:stream';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log';
import type { RunningInstance } from './find-instance';
import { isJsonRpcRequest, isJsonRpcResult } from './json-rpc-message';
import { McpHttpForwarder } from './mcp-http-forwarder';
import { StdioLineTransport } from './stdio-line-transport';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

/**
 * `sandpit mcp` while a Sandpit serves this data folder: forwards JSON-RPC unchanged between our
 * stdin/stdout and `<url>/mcp` (Streamable HTTP with the bearer token), so every run shows in that
 * instance. Ends the MCP session (its sandboxes stop) and closes both sides when either side ends.
 */
export async function runMcpBridge(instance: RunningInstance, stdout: Writable, log: Logger): Promise<void> {
  const stdio = new StdioLineTransport(process.stdin, stdout);
  const http = new McpHttpForwarder(new URL(`${instance.url}/mcp`), instance.token);
  const initializeIds = new Set<RequestId>();
  let httpClosed!: () => void;
  const httpGone = new Promise<string>((resolve) => {
    httpClosed = () => resolve('the Sandpit instance ended the MCP session');
  });

  const forward = (message: JSONRPCMessage): Promise<void> =>
    http.send(message).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      log.warn('could not forward a message to Sandpit', { url: instance.url, error: why });
      if (isJsonRpcRequest(message)) {
        stdio
          .send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32603, message: `Sandpit at ${instance.url} did not take the request: ${why}` },
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
      initializeIds.add(message.id);
      initialized = forward(message);
      return;
    }
    void initialized.then(() => forward(message));
  };
  http.onmessage = (message: JSONRPCMessage) => {
    // Later requests carry the negotiated version, as the protocol asks of a client.
    if (isJsonRpcResult(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    stdio
      .send(message)
      .catch((error: unknown) =>
        log.warn('could not write to stdout', { error: error instanceof Error ? error.message : String(error) }),
      );
  };
  http.onerror = (error) => log.warn('MCP HTTP error', { url: instance.url, error: error.message });
  stdio.onerror = (error) => log.warn('stdio transport error', { error: error.message });
  http.onclose = () => httpClosed();

  await stdio.start();
  log.info('bridging stdio to the running Sandpit', { url: instance.url });
  const reason = await Promise.race([untilStdioEnd(stdio.ended), httpGone]);
  log.info('bridge ending', { reason });
  await whileShuttingDown(async () => {
    await http.terminate().catch(() => undefined);
    await stdio.close().catch(() => undefined);
  });
}
