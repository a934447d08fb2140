import { z } from 'zod';

/** How a caller reaches Sandpit (the panel over IPC or /api, MCP over HTTP or stdio, REST, the core itself). */
export const CALL_TRANSPORTS = ['ipc', 'http', 'mcp-http', 'mcp-stdio', 'rest', 'internal'] as const;
export const callTransportSchema = z.enum(CALL_TRANSPORTS);
export type CallTransport = z.infer<typeof callTransportSchema>;
