import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializedNotification, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { toErrorBody } from '../../shared/api/errors';
import { sendJson } from '../http/http-errors';
import type { HttpRoute, RouteContext } from '../http/router';
import { withTimeout } from '../util/with-timeout';
import { clientNameOf, createMcpServer } from './create-mcp-server';
import { initializeRefusal } from './initialize-refusal';
import type { SandpitMcpServer } from './create-mcp-server';
import { DEFAULT_MCP_SESSION_LIMITS, McpSessionTable } from './mcp-session-table';
import type { McpSessionLimits } from './mcp-session-table';
import { stopOwnSessions } from './own-sessions';
import { runOwnerKey } from './run-owner';
import type { McpSandpit } from './tool-kit';
import { APPROVAL_HEADER, ASSISTANT_HEADER, assistantIdOf, BRIDGE_HEADER } from '../../shared/domain/assistant-tag';
import { approvalPolicySchema } from '../../shared/domain/approval';

export { DEFAULT_MCP_SESSION_LIMITS } from './mcp-session-table';
export type { McpSessionLimits } from './mcp-session-table';

/** How long ending an MCP session may take to stop its sandboxes. */
const STOP_TIMEOUT_MS = 60_000;

export interface McpHttpMountOptions extends Partial<McpSessionLimits> {
  /** Default `/mcp`. */
  path?: string;
  /** How often expired sessions are looked for; default a quarter of the shorter timeout (20 ms to 30 s). */
  sweepIntervalMs?: number;
}

export interface McpHttpMount {
  /** `/mcp` (POST, GET, DELETE) for the HTTP server's `mounts`. */
  route: HttpRoute;
  /** MCP sessions open now. */
  sessionCount(): number;
  /** The limits in force. */
  limits: McpSessionLimits;
  /** Ends every MCP session (and stops their sandboxes). */
  close(): Promise<void>;
}

/**
 * How an MCP session ended. `deleted` (the client's DELETE) and `closed` (the server shutting down, the
 * transport gone) stop its sandboxes at once; `expired` and `evicted` leave them to their own idle time.
 */
type Ending = 'deleted' | 'closed' | 'expired' | 'evicted';

interface LiveSession {
  id: string;
  transport: StreamableHTTPServerTransport;
  mcp: SandpitMcpServer;
  /** The bearer principal that opened it: another token may not use it. */
  opener: string;
  ending?: Ending;
  sandboxesStopped?: Promise<void>;
}

/** The principal that owns the sandboxes of one MCP session. */
export function mcpPrincipal(mcpSessionId: string): string {
  return `mcp:${mcpSessionId}`;
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id }, headers);
}

/** Whether a request on a session is a use of it: anything but the `initialized` notification after initialize. */
function isUse(method: string | undefined, body: unknown): boolean {
  if (method !== 'POST') return true;
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return !messages.every((m) => isInitializedNotification(m));
}

function idOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * MCP over Streamable HTTP, stateful: one McpServer per MCP session (routed by `mcp-session-id`), whose
 * sandboxes belong to `mcp:<session id>`. A principal holds at most `maxSessionsPerPrincipal` sessions
 * (a new one evicts an idle one, or is refused with 429 when all are busy), and sessions nobody uses
 * expire: their McpServer and transport are closed and freed, while their sandboxes stop after their own
 * idle time. A DELETE (or the mount closing) stops the sandboxes at once.
 */
export function createMcpHttpMount(sandpit: McpSandpit, options: McpHttpMountOptions = {}): McpHttpMount {
  const log = sandpit.log.child({ component: 'mcp-http' });
  const path = options.path ?? '/mcp';
  const limits: McpSessionLimits = {
    maxSessionsPerPrincipal: options.maxSessionsPerPrincipal ?? DEFAULT_MCP_SESSION_LIMITS.maxSessionsPerPrincipal,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_MCP_SESSION_LIMITS.idleTimeoutMs,
    unusedTimeoutMs: options.unusedTimeoutMs ?? DEFAULT_MCP_SESSION_LIMITS.unusedTimeoutMs,
  };
  const sweepIntervalMs =
    options.sweepIntervalMs ??
    Math.min(30_000, Math.max(20, Math.min(limits.idleTimeoutMs, limits.unusedTimeoutMs) / 4));
  const table = new McpSessionTable<LiveSession>(limits);
  const stopping = new Set<Promise<void>>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let closed = false;

  /** Stops the sandboxes of an ended MCP session, once. */
  const stopSandboxes = (session: LiveSession): Promise<void> => {
    if (!session.sandboxesStopped) {
      const pending = withTimeout(
        // With its run owner: a session one of its background runs still runs in is kept (issue 23).
        stopOwnSessions(sandpit.api, { transport: 'mcp-http', principal: mcpPrincipal(session.id), runOwner: runOwnerKey(session.opener, clientNameOf(session.mcp)) }),
        STOP_TIMEOUT_MS,
        'Stopping the sandboxes of an MCP session',
      ).then(
        ({ stopped, afterRuns }) => {
          log.info('MCP session ended', { mcpSessionId: session.id, how: session.ending, sandboxesStopped: stopped, heldByBackgroundRuns: afterRuns !== undefined });
          // Not waited for by the mount's close: a background run may go on for an hour (it ends when Sandpit quits).
          void afterRuns?.then(
            (count) => log.info('stopped the sandboxes of an ended MCP session once its background runs were over', { mcpSessionId: session.id, sandboxesStopped: count }),
            (error: unknown) => log.warn('could not stop the sandboxes an ended MCP session\'s background runs held', { mcpSessionId: session.id, error: toErrorBody(error).message }),
          );
        },
        (error: unknown) =>
          log.warn('could not stop the sandboxes of an ended MCP session', {
            mcpSessionId: session.id,
            error: toErrorBody(error).message,
          }),
      );
      session.sandboxesStopped = pending;
      stopping.add(pending);
      void pending.finally(() => stopping.delete(pending));
    }
    return session.sandboxesStopped;
  };

  /** Closes a session's McpServer and transport; its onclose does the rest. Never rejects. */
  const end = async (session: LiveSession, how: Ending): Promise<void> => {
    session.ending ??= how;
    if (table.get(session.id) === session) table.delete(session.id);
    await session.mcp.close().catch(() => undefined);
  };

  const stopSweep = (): void => {
    clearInterval(sweepTimer);
    sweepTimer = undefined;
  };
  const sweep = (): void => {
    for (const session of table.takeExpired()) void end(session, 'expired');
    if (table.size === 0) stopSweep();
  };
  const startSweep = (): void => {
    if (sweepTimer !== undefined || closed) return;
    sweepTimer = setInterval(sweep, sweepIntervalMs);
    sweepTimer.unref();
  };

  const open = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    const admission = table.admit(ctx.principal);
    if (!admission.ok) {
      log.warn('MCP initialize refused: too many sessions', { sessions: admission.sessions, busy: admission.busy });
      rpcError(
        res,
        429,
        -32000,
        `Too many MCP sessions: this token already has ${admission.sessions}, the most it may hold, and every one has a request in flight. ` +
          'End a session you no longer need (DELETE /mcp with its Mcp-Session-Id header) or retry when a request has finished.',
        idOf(ctx.body),
        { 'retry-after': '1' },
      );
      return;
    }
    for (const victim of admission.evicted) {
      log.info('MCP session evicted to make room for a new one', { mcpSessionId: victim.id });
      void end(victim, 'evicted');
    }
    try {
      // Filled in below: the transport's callbacks and the server's handlers need the record they belong to.
      const session = { id: '', opener: ctx.principal } as LiveSession;
      // `sandpit mcp` started from a configuration Connect wrote says which assistant started it.
      const assistant = assistantIdOf(req.headers[ASSISTANT_HEADER]);
      // …and how strict it wants approvals to be, at least (never looser than the settings).
      const approvalFloor = approvalPolicySchema.safeParse(req.headers[APPROVAL_HEADER]).data;
      // A stdio client bridged by `sandpit mcp` connected over stdio: its runs and its row in Connect say so.
      const callTransport = req.headers[BRIDGE_HEADER] === 'stdio' ? 'mcp-stdio' : 'mcp-http';
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session.id = id;
          table.add(id, ctx.principal, session);
          // The initialize's own answer is a request in flight: nothing evicts the session before it is sent.
          res.once('close', table.begin(id, false));
          startSweep();
          log.info('MCP session started', { mcpSessionId: id, client: clientNameOf(mcp) });
        },
        onsessionclosed: (id) => {
          session.ending ??= 'deleted';
          if (table.get(id) === session) table.delete(id);
          return stopSandboxes(session);
        },
      });
      const mcp: SandpitMcpServer = createMcpServer({
        sandpit,
        context: () => ({
          transport: callTransport,
          client: clientNameOf(mcp),
          principal: mcpPrincipal(transport.sessionId ?? 'uninitialized'),
          // Background runs outlive the MCP session: the same client (name) with the same token fetches them again.
          runOwner: runOwnerKey(ctx.principal, clientNameOf(mcp)),
          ...(approvalFloor ? { approvalFloor } : {}),
        }),
      });
      session.transport = transport;
      session.mcp = mcp;
      let untrack: (() => void) | undefined;
      mcp.server.server.oninitialized = () => {
        untrack ??= sandpit.clients.add({
          name: clientNameOf(mcp) ?? 'unnamed client',
          transport: callTransport,
          ...(assistant ? { assistant } : {}),
          ...(transport.sessionId === undefined ? {} : { mcpSessionId: transport.sessionId }),
        });
      };
      mcp.server.server.onclose = () => {
        untrack?.();
        if (transport.sessionId === undefined) return;
        if (table.get(session.id) === session) table.delete(session.id);
        if (table.size === 0) stopSweep();
        const how = (session.ending ??= 'closed');
        if (how === 'expired' || how === 'evicted') {
          log.info('MCP session closed; its sandboxes stop after their idle time', { mcpSessionId: session.id, how });
          return;
        }
        void stopSandboxes(session);
      };
      await mcp.server.connect(transport);
      await transport.handleRequest(req, res, ctx.body);
      // An initialize that failed leaves a transport without a session: nothing may keep it.
      if (transport.sessionId === undefined || table.get(transport.sessionId) !== session) await mcp.close();
    } finally {
      admission.release();
    }
  };

  const handler = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    if (req.method === 'POST' && ctx.body === undefined) {
      rpcError(res, 400, -32700, 'Parse error: the request has no JSON-RPC message in its body.');
      return;
    }
    // An initialize with bad params is answered here (as the server would answer a request it cannot take): no session.
    const refusal = req.method === 'POST' ? initializeRefusal(ctx.body) : undefined;
    if (refusal) {
      sendJson(res, 200, refusal);
      return;
    }
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = table.get(id);
      if (!session || session.opener !== ctx.principal) {
        rpcError(
          res,
          404,
          -32001,
          'Session not found: it ended (deleted, or closed after a time without requests) or never existed. Start a new one with initialize.',
          idOf(ctx.body),
        );
        return;
      }
      res.once('close', table.begin(id, isUse(req.method, ctx.body)));
      await session.transport.handleRequest(req, res, ctx.body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(ctx.body)) {
      if (closed) {
        rpcError(res, 503, -32000, 'Sandpit is shutting down: no new MCP sessions.', idOf(ctx.body));
        return;
      }
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
    sessionCount: () => table.size,
    limits,
    close: async () => {
      closed = true;
      stopSweep();
      const sessions = table.values();
      await Promise.all(sessions.map((s) => end(s, 'closed')));
      await Promise.all([...stopping]);
    },
  };
}
