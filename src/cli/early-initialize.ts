import type { JSONRPCMessage, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO, negotiatedProtocolVersion } from '../core/mcp/server-identity';
import { isJsonRpcRequest, isRecord } from './json-rpc-message';

/**
 * The result Sandpit's MCP server gives `message` when it is a well-formed `initialize` request, computed
 * without the SDK (what the SDK's server answers: the negotiated version, the capabilities, the server's
 * name and instructions); undefined for anything else, which the server itself answers.
 */
export function earlyInitializeResult(message: JSONRPCMessage): JSONRPCResultResponse | undefined {
  if (!isJsonRpcRequest(message) || message.method !== 'initialize') return undefined;
  const params = message.params;
  if (!isRecord(params) || typeof params.protocolVersion !== 'string' || !isRecord(params.capabilities)) return undefined;
  const client = params.clientInfo;
  if (!isRecord(client) || typeof client.name !== 'string' || typeof client.version !== 'string') return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    result: {
      protocolVersion: negotiatedProtocolVersion(params.protocolVersion),
      capabilities: { tools: { ...SERVER_CAPABILITIES.tools }, resources: { ...SERVER_CAPABILITIES.resources }, logging: {}, tasks: structuredClone(SERVER_CAPABILITIES.tasks) },
      serverInfo: { ...SERVER_INFO },
      instructions: INSTRUCTIONS,
    },
  };
}
