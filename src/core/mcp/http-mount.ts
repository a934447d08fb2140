import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { toErrorBody } from '../../shared/api/errors';
import { sendJson } from '../http/http-errors';
import type { HttpRoute, RouteContext } from '../http/router';
import { withTimeout } from '../util/with-timeout';
import { clientNameOf, createMcpServer } from './create-mcp-server';
import type { SandpitMcpServer } from './create-mcp-server';
import { stopOwnSessions } from './own-sessions';
import type { McpSandpit } from './tool-kit';

/** How long ending an MCP session may take to stop its sandboxes. */
const STOP_TIMEOUT_MS = 60_000;

export interface McpHttpMount {
  /** `/mcp` (POST, GET, DELETE) for the HTTP server's `mounts`. */
  route: HttpRoute;
  /** MCP sessions open now. */
  sessionCount(): number;
  /** Ends every MCP session (and stops their sandboxes). */
  close(): Promise<void>;
}

interface LiveSession {
  transport: StreamableHTTPServerTransport;
  mcp: SandpitMcpServer;
  /** The bearer principal that opened it: another token may not use it. */
  opener: string;
}

/** The principal that owns the sandboxes of one MCP session. */
export function mcpPrincipal(mcpSessionId: string): string {
  return `mcp:${mcpSessionId}`;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * MCP over Streamable HTTP, stateful: one McpServer per MCP session (routed by `mcp-session-id`), whose
 * sandboxes belong to `mcp:<session id>` and are stopped when the session ends (DELETE or close).
 */
export function createMcpHttpMount(sandpit: McpSandpit, path = '/mcp'): McpHttpMount {
  const log = sandpit.log.child({ component: 'mcp-http' });
  const live = new Map<string, LiveSession>();
  const stopping = new Map<string, Promise<void>>();

  /** Stops the sandboxes of an ended MCP session, once. */
  const stopSandboxes = (id: string): Promise<void> => {
    let pending = stopping.get(id);
    if (!pending) {
      const principal = mcpPrincipal(id);
      pending = withTimeout(
        stopOwnSessions(sandpit.api, { transport: 'mcp-http', principal }),
        STOP_TIMEOUT_MS,
        'Stopping the sandboxes of an MCP session',
      ).then(
        (count) => log.info('MCP session ended', { mcpSessionId: id, sandboxesStopped: count }),
        (error: unknown) =>
          log.warn('could not stop the sandboxes of an ended MCP session', {
            mcpSessionId: id,
            error: toErrorBody(error).message,
          }),
      );
      stopping.set(id, pending);
      void pending.finally(() => stopping.delete(id));
    }
    return pending;
  };

  const open = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        live.set(id, { transport, mcp, opener: ctx.principal });
        log.info('MCP session started', { mcpSessionId: id, client: clientNameOf(mcp) });
      },
      onsessionclosed: (id) => stopSandboxes(id),
    });
    const mcp: SandpitMcpServer = createMcpServer({
      sandpit,
      context: () => ({
        transport: 'mcp-http',
        client: clientNameOf(mcp),
        principal: mcpPrincipal(transport.sessionId ?? 'uninitialized'),
      }),
    });
    let untrack: (() => void) | undefined;
    mcp.server.server.oninitialized = () => {
      untrack ??= sandpit.clients.add({
        name: clientNameOf(mcp) ?? 'unnamed client',
        transport: 'mcp-http',
        ...(transport.sessionId === undefined ? {} : { mcpSessionId: transport.sessionId }),
      });
    };
    mcp.server.server.onclose = () => {
      untrack?.();
      const id = transport.sessionId;
      if (id === undefined) return;
      live.delete(id);
      void stopSandboxes(id);
    };
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res, ctx.body);
    // An initialize that failed leaves a transport without a session: nothing may keep it.
    if (transport.sessionId === undefined || !live.has(transport.sessionId)) await mcp.close();
  };

  const handler = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    if (req.method === 'POST' && ctx.body === undefined) {
      rpcError(res, 400, -32700, 'Parse error: the request has no JSON-RPC message in its body.');
      return;
    }
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = live.get(id);
      if (!session || session.opener !== ctx.principal) {
        rpcError(res, 404, -32001, 'Session not found: it ended or never existed. Start a new one with initialize.');
        return;
      }
      await session.transport.handleRequest(req, res, ctx.body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(ctx.body)) {
      await open(req, res, ctx);
      return;
    }
    rpcError(
      res,
      400,
      -32000,
      'Bad Request: the Mcp-Session-Id header is required (send initialize first to get one).',
    );
  };

  return {
    route: { path, methods: ['POST', 'GET', 'DELETE'], streams: ['GET'], handler },
    sessionCount: () => live.size,
    close: async () => {
      const sessions = [...live.entries()];
      live.clear();
      await Promise.all(sessions.map(([, s]) => s.mcp.close().catch(() => undefined)));
      await Promise.all(sessions.map(([id]) => stopSandboxes(id)));
    },
  };
}
