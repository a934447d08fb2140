import { z } from 'zod';
import { sandboxPortSchema } from '../../../shared/domain/preview';
import { defineTool } from '../define-tool';
import { sessionIdField } from '../tool-fields';

export const previewPort = defineTool({
  name: 'preview_port',
  title: 'Preview a web app in the sandbox',
  description:
    "Gives a link on this computer (http://127.0.0.1:…) to a port a web app listens on inside the session's sandbox, e.g. one started with start_process " +
    '("python3 -m http.server 8000"). The sandbox keeps no network: Sandpit carries the connection. The person can open it from the Sandpit panel (the session\'s Preview tab). ' +
    'Start the app first; wait_seconds waits for it to listen.',
  input: {
    port: sandboxPortSchema.describe('The port the app listens on inside the sandbox (1-65535).'),
    session_id: sessionIdField,
    path: z.string().max(2_048).optional().describe('The page to open, e.g. "/report.html" (default: /).'),
    wait_seconds: z
      .number()
      .min(0)
      .max(60)
      .optional()
      .describe('Wait up to this long for something to listen on the port (default 0).'),
  },
  output: {
    preview_id: z.string().describe('The preview (the person can stop it in the panel)'),
    session_id: z.string().describe('The session whose app it shows'),
    url: z.string().describe('The link that opens it in a browser on this computer'),
    port: z.number().int().describe('The port inside the sandbox'),
  },
  // Opens a way to look at what the sandbox serves, from this computer only; the sandbox gains nothing.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const p = await kit.call('previews.open', {
      sessionId: args.session_id,
      port: args.port,
      ...(args.path === undefined ? {} : { path: args.path }),
      waitSeconds: args.wait_seconds ?? 0,
    });
    return {
      structured: { preview_id: p.id, session_id: p.sessionId, url: p.url, port: p.port },
      text: `Preview of port ${p.port} in session ${p.sessionId}: ${p.url}\nThe person can open it from the Sandpit panel (the session's Preview tab), or open this link on this computer.`,
    };
  },
});
