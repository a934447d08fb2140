import type { Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';
import type { RunningInstance } from './find-instance';
import { StdioLineTransport } from './stdio-line-transport';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

const TERMINATE_TIMEOUT_MS = 5_000;

/**
 * `sandpit mcp` while a Sandpit serves this data folder: forwards JSON-RPC unchanged between our
 * stdin/stdout and `<url>/mcp` (Streamable HTTP with the bearer token), so every run shows in that
 * instance. Ends the MCP session (its sandboxes stop) and closes both sides when either side ends.
 */
export async function runMcpBridge(instance: RunningInstance, stdout: Writable, log: Logger): Promise<void> {
  const stdio = new StdioLineTransport(process.stdin, stdout);
  const http = new StreamableHTTPClientTransport(new URL(`${instance.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${instance.token}` } },
  });
  const initializeIds = new Set<RequestId>();
  let httpClosed!: () => void;
  const httpGone = new Promise<string>((resolve) => {
    httpClosed = () => resolve('the Sandpit instance closed the connection');
  });

  const forward = (message: JSONRPCMessage): Promise<void> =>
    http.send(message).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      log.warn('could not forward a message to Sandpit', { url: instance.url, error: why });
      if (isJSONRPCRequest(message)) {
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
    if (isJSONRPCRequest(message) && message.method === 'initialize') {
      initializeIds.add(message.id);
      initialized = forward(message);
      return;
    }
    void initialized.then(() => forward(message));
  };
  http.onmessage = (message: JSONRPCMessage) => {
    // The HTTP transport must send the negotiated version on later requests, as the SDK Client would tell it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    stdio
      .send(message)
      .catch((error: unknown) =>
        log.warn('could not write to stdout', { error: error instanceof Error ? error.message : String(error) }),
      );
  };
  http.onerror = (error) => log.warn('MCP HTTP transport error', { url: instance.url, error: error.message });
  stdio.onerror = (error) => log.warn('stdio transport error', { error: error.message });
  http.onclose = () => httpClosed();

  await http.start();
  await stdio.start();
  log.info('bridging stdio to the running Sandpit', { url: instance.url });
  const reason = await Promise.race([untilStdioEnd(stdio.ended), httpGone]);
  log.info('bridge ending', { reason });
  await whileShuttingDown(async () => {
    await withTimeout(http.terminateSession(), TERMINATE_TIMEOUT_MS, 'Ending the MCP session').catch(() => undefined);
    await http.close().catch(() => undefined);
    await stdio.close().catch(() => undefined);
  });
}
