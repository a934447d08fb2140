import { readFile, realpath } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PANEL_CSP } from '../../shared/panel-csp';
import type { HttpRoute } from './router';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** The built panel (electron-vite's renderer output) of this repository. */
export function defaultPanelDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../out/renderer');
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Sandpit</title>
<p>The Sandpit panel is not built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it), then reload this page.</p>`;

/**
 * The web panel's files at `/` (public: the page holds no secret; it reads the token from the URL
 * fragment, which browsers never send). Only files inside the panel folder are served.
 */
export function panelRoutes(panelDir: string = defaultPanelDir()): HttpRoute[] {
  const root = resolve(panelDir);
  return [
    {
      path: '/',
      match: 'prefix',
      methods: ['GET'],
      public: true,
      handler: async (_req, res, ctx) => {
        const wanted = ctx.url.pathname === '/' ? '/index.html' : decodeURIComponent(ctx.url.pathname);
        const file = resolve(join(root, wanted));
        const headers = {
          'content-security-policy': PANEL_CSP,
          'x-frame-options': 'DENY',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
        };
        try {
          const real = await realpath(file);
          if (!real.startsWith(`${await realpath(root)}${sep}`)) throw new Error('outside the panel folder');
          const body = await readFile(real);
          res.writeHead(200, { ...headers, 'content-type': TYPES[extname(real)] ?? 'application/octet-stream', 'content-length': body.length });
          res.end(body);
        } catch {
          if (wanted === '/index.html') {
            res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' });
            res.end(NOT_BUILT);
            return;
          }
          res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
          res.end('Not found');
        }
      },
    },
  ];
}
