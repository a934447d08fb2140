import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResultResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The shape of a JSON-RPC 2.0 message as MCP has it (a request, a notification, a result or an error;
 * no batches, no unknown members), checked by hand. It is what the SDK's JSONRPCMessageSchema accepts at
 * the envelope; each method's params are checked by the server that handles it. Not zod: `sandpit mcp`
 * reads its first line with this before it has loaded anything else, and loading zod and the SDK's
 * schemas is most of a start.
 */
export function parseJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  const keys = Object.keys(value);
  const only = (...allowed: string[]): boolean => keys.every((key) => allowed.includes(key));
  if ('params' in value && !isRecord(value.params)) return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string') return undefined;
    if ('id' in value) return isRequestId(value.id) && only('jsonrpc', 'id', 'method', 'params') ? (value as unknown as JSONRPCMessage) : undefined;
    return only('jsonrpc', 'method', 'params') ? (value as unknown as JSONRPCMessage) : undefined;
  }
  if ('result' in value) return isRequestId(value.id) && isRecord(value.result) && only('jsonrpc', 'id', 'result') ? (value as unknown as JSONRPCMessage) : undefined;
  if ('error' in value) {
    const { error } = value;
    if (!isRecord(error) || typeof error.code !== 'number' || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') return undefined;
    if ('id' in value && !isRequestId(value.id)) return undefined;
    return only('jsonrpc', 'id', 'error') ? (value as unknown as JSONRPCMessage) : undefined;
  }
  return undefined;
}

export function isJsonRpcRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export function isJsonRpcResult(message: JSONRPCMessage): message is JSONRPCResultResponse {
  return 'result' in message && 'id' in message;
}

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
