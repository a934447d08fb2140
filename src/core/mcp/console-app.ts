/**
 * The console in the chat (issue 23, MCP Apps): one self-contained page served as `ui://sandpit/console`
 * (`text/html;profile=mcp-app`), built with the official `@modelcontextprotocol/ext-apps` App class (inlined: the page
 * loads nothing) and Sandpit's own script (console-app-script.ts). No network: inline script and style only.
 */
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from './console-app-script';
import { extAppsScript } from './ext-apps-bundle';

export const CONSOLE_APP_URI = 'ui://sandpit/console';
export const MCP_APP_MIME = 'text/html;profile=mcp-app';
/** The MCP Apps extension a client declares in its capabilities when it renders apps. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/**
 * The `_meta` a tool carries to link the console: `ui.resourceUri`, and the flat `ui/resourceUri` key that hosts of the
 * first MCP Apps drafts read (the package's own registerAppTool sets both the same way).
 */
export const CONSOLE_APP_META = { ui: { resourceUri: CONSOLE_APP_URI }, 'ui/resourceUri': CONSOLE_APP_URI } as const;

/** The resource's own `_meta`: a border around it in the chat; no network of any kind (no CSP domains declared). */
export const CONSOLE_RESOURCE_META = { ui: { prefersBorder: true } } as const;

let page: Promise<string> | undefined;

/** The page: the ext-apps App class, then the console's script, in one module script; read once. */
export function consoleAppHtml(): Promise<string> {
  page ??= extAppsScript().then(
    (extApps) =>
      '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Sandpit console</title>' +
      `<style>${CONSOLE_STYLE}</style></head><body><div id="out" aria-live="polite"></div>` +
      `<script type="module">${extApps}${CONSOLE_SCRIPT}</script></body></html>`,
  );
  page.catch(() => {
    page = undefined;
  });
  return page;
}

/** Whether a client said it renders MCP Apps (capabilities.extensions["io.modelcontextprotocol/ui"]). */
export function rendersApps(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
  const ui = capabilities?.extensions?.[MCP_APPS_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return ui !== undefined && (!Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(MCP_APP_MIME));
}
