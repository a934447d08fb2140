import { ErrorCode, InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The answer to an `initialize` request whose params do not fit the protocol (a field missing or of the wrong
 * type): JSON-RPC's -32602 Invalid params, naming each field and what it must be. Undefined for any other
 * message, and for a well-formed initialize. (Left to the SDK, such a request fails its handler's schema parse
 * and is answered -32603 Internal error.) Every transport asks this before the server sees the message.
 */
export function initializeRefusal(message: unknown): JSONRPCErrorResponse | undefined {
  if (!isRecord(message) || message.method !== 'initialize') return undefined;
  const { id } = message;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const fields = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'the request'} (${issue.message.replace(/^Invalid input: /, '')})`);
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InvalidParams,
      message:
        `Invalid params: initialize needs params.protocolVersion (a string), params.capabilities (an object) and ` +
        `params.clientInfo (an object with a name and a version). Wrong or missing: ${fields.join('; ')}.`,
    },
  };
}
