import type { ServerResponse } from 'node:http';
import { SandpitError } from '../../shared/api/errors';
import type { CallContext, Handlers } from '../api/api-types';
import { call } from '../api/dispatcher';
import { BASE_HEADERS, sendError } from './http-errors';
import type { HttpRoute } from './router';

const NOTEBOOK_PATH = /^\/sessions\/([^/]{1,192})\/notebook\.ipynb$/;

/** `GET /sessions/{id}/notebook.ipynb`: the session's runs as a Jupyter notebook (audit.notebook), as a download. */
export function restNotebookRoute(api: Handlers): HttpRoute {
  return {
    path: '/sessions',
    match: 'prefix',
    methods: ['GET'],
    handler: async (_req, res, ctx) => {
      const context: CallContext = { transport: 'rest', client: 'rest', principal: ctx.principal };
      try {
        const match = NOTEBOOK_PATH.exec(ctx.url.pathname);
        if (!match) throw new SandpitError('NOT_FOUND', 'Not found: a session\'s notebook is at /sessions/{session_id}/notebook.ipynb.');
        const sessionId = decodedId(match[1]!);
        const notebook = await call(api, 'audit.notebook', { sessionId }, context);
        sendNotebook(res, notebook.fileName, notebook.content);
      } catch (error) {
        sendError(res, error);
      }
    },
  };
}

function decodedId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new SandpitError('INVALID_INPUT', 'The session id in the path is not valid.');
  }
}

function sendNotebook(res: ServerResponse, fileName: string, content: string): void {
  res.writeHead(200, {
    ...BASE_HEADERS,
    'content-type': 'application/x-ipynb+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(content)),
    // fileName is [A-Za-z0-9._-] only (notebookFileName).
    'content-disposition': `attachment; filename="${fileName}"`,
  });
  res.end(content);
}
