import type { SandpitBridge, Transport } from '../../../shared/api/transport';
import { createHttpTransport } from './http-transport';
import { createIpcTransport } from './ipc-transport';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent in a browser. */
    sandpit?: SandpitBridge;
  }
}

const TOKEN_KEY = 'sandpit.token';

/** The parts of `window` this module uses (so tests can pass a plain object). */
export interface PanelHost {
  sandpit?: SandpitBridge;
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'state' | 'replaceState'>;
  sessionStorage?: Pick<Storage, 'getItem' | 'setItem'>;
}

/**
 * The web panel's token: taken from the URL fragment (`#token=…`, never sent to a server), then removed from
 * the address bar and history. Kept in this tab's sessionStorage so a reload still works.
 */
export function takeToken(host: PanelHost): string | undefined {
  const token = new URLSearchParams(host.location.hash.replace(/^#/, '')).get('token') ?? undefined;
  if (token) {
    host.history.replaceState(host.history.state, '', `${host.location.pathname}${host.location.search}`);
    try {
      host.sessionStorage?.setItem(TOKEN_KEY, token);
    } catch {
      // Storage may be disabled; the token then lives until the page is closed.
    }
    return token;
  }
  try {
    return host.sessionStorage?.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * IPC when running inside the desktop app, else HTTP to the server that served this page, with the
 * panel's own token from the link (not the assistants' token, which "make a new token" rotates).
 */
export function createPanelTransport(host: PanelHost = window): Transport {
  if (host.sandpit) return createIpcTransport(host.sandpit);
  return createHttpTransport({ token: takeToken(host) ?? '' });
}
