import { dispatch } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { httpStatusFor, sendJson } from './http-errors';
import type { HttpSandpit } from './http-sandpit';
import type { HttpRoute } from './router';
import { streamBusEvents } from './sse-events';

/** The web panel calls as the panel does over IPC: it sees and manages every session. */
const PANEL_CONTEXT: CallContext = { transport: 'http', client: 'panel' };

/** `POST /api/<method>` → the dispatcher's envelope; `GET /api/events` → every bus event as SSE. */
export function apiRoutes(sandpit: HttpSandpit): HttpRoute[] {
  return [
    {
      path: '/api/events',
      methods: ['GET'],
      panel: true,
      streams: ['GET'],
      handler: (req, res) => streamBusEvents(sandpit.bus, req, res),
    },
    {
      path: '/api',
      match: 'prefix',
      methods: ['POST'],
      panel: true,
      handler: async (_req, res, ctx) => {
        const name = decodeMethodName(ctx.url.pathname.slice('/api/'.length));
        const envelope = await dispatch(sandpit.api, name, ctx.body, PANEL_CONTEXT);
        sendJson(res, envelope.ok ? 200 : httpStatusFor(envelope.error.code), envelope);
      },
    },
  ];
}

function decodeMethodName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
