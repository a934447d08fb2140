import { z } from 'zod';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { SANDPIT_VERSION } from '../version';
import { sendError, sendJson } from './http-errors';
import type { HttpSandpit } from './http-sandpit';
import { restEnvironment } from './rest-environment';
import { restExecuteRequestSchema, runRestExecute } from './rest-execute';
import { restNotebookRoute } from './rest-notebook';
import type { HttpRoute } from './router';

/** Health as anyone on this machine may see it: whether we and Docker are up, and our version. Nothing else. */
export interface HealthBody {
  ok: true;
  engine: 'up' | 'down' | 'connecting';
  version: string;
}

const restInstallRequestSchema = z
  .object({ packages: z.array(z.string().min(1).max(200)).min(1).max(100), session_id: z.string().min(1).max(64).optional() })
  .strict();

/** REST on top of the same API handlers as the panel and MCP: /health, /execute, /list-envs, /install, /sessions/{id}/notebook.ipynb. */
export function restRoutes(sandpit: HttpSandpit): HttpRoute[] {
  const log = sandpit.log.child({ component: 'rest' });
  return [
    restNotebookRoute(sandpit.api),
    {
      path: '/health',
      methods: ['GET'],
      public: true,
      handler: async (_req, res) => {
        const body: HealthBody = { ok: true, engine: sandpit.engine.current.state, version: SANDPIT_VERSION };
        sendJson(res, 200, body);
      },
    },
    {
      path: '/execute',
      methods: ['POST'],
      handler: async (_req, res, ctx) => {
        const parsed = restExecuteRequestSchema.safeParse(ctx.body ?? {});
        if (!parsed.success) {
          sendError(res, parsed.error);
          return;
        }
        const context: CallContext = { transport: 'rest', client: 'rest', principal: ctx.principal };
        const gone = new AbortController();
        const onClose = (): void => {
          if (!res.writableEnded) gone.abort();
        };
        res.once('close', onClose);
        try {
          sendJson(res, 200, await runRestExecute(sandpit.api, parsed.data, context, gone.signal, log));
        } catch (error) {
          sendError(res, error);
        } finally {
          res.off('close', onClose);
        }
      },
    },
    {
      path: '/list-envs',
      methods: ['GET'],
      handler: async (_req, res, ctx) => {
        const context: CallContext = { transport: 'rest', client: 'rest', principal: ctx.principal };
        try {
          const { environments } = await call(sandpit.api, 'environments.list', {}, context);
          sendJson(res, 200, { environments: environments.map(restEnvironment) });
        } catch (error) {
          sendError(res, error);
        }
      },
    },
    {
      path: '/install',
      methods: ['POST'],
      // `{ packages: string[], session_id? }` → per-package outcomes; without a session id, the token's default session.
      handler: async (_req, res, ctx) => {
        const parsed = restInstallRequestSchema.safeParse(ctx.body ?? {});
        if (!parsed.success) {
          sendError(res, parsed.error);
          return;
        }
        const context: CallContext = { transport: 'rest', client: 'rest', principal: ctx.principal };
        try {
          const { results } = await call(sandpit.api, 'packages.install', { sessionId: parsed.data.session_id, packages: parsed.data.packages }, context);
          sendJson(res, 200, { results });
        } catch (error) {
          sendError(res, error);
        }
      },
    },
  ];
}
