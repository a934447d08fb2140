import type { SandpitBridge, Transport } from '../../../shared/api/transport';
import { tokenInHash } from '../stores/routes';
import { createHttpTransport } from './http-transport';
import { createIpcTransport } from './ipc-transport';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent in a browser. */
    sandpit?: SandpitBridge;
  }
}

const TOKEN_KEY = 'sandpit.token';
/** Set once Sandpit accepted the kept token: a later refusal then means the link was replaced. */
const ACCEPTED_KEY = 'sandpit.token.accepted';

/** The parts of `window` this module uses (so tests can pass a plain object). */
export interface PanelHost {
  sandpit?: SandpitBridge;
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'state' | 'replaceState'>;
  sessionStorage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
}

function storage(host: PanelHost, run: (s: NonNullable<PanelHost['sessionStorage']>) => void): void {
  try {
    if (host.sessionStorage) run(host.sessionStorage);
  } catch {
    // Storage may be disabled; the token then lives until the page is closed.
  }
}

/** The address without the token: the route part of the fragment stays (`#/activity&token=…` → `#/activity`). */
function withoutToken(host: PanelHost): string {
  const rest = host.location.hash.replace(/(^#?|[&?])token=[^&]*/, '').replace(/^#?&/, '#');
  const route = rest.startsWith('#/') ? rest : '';
  return `${host.location.pathname}${host.location.search}${route}`;
}

/** Keeps a token from a link for this tab (reloads keep working) and removes it from the address bar and history. */
export function keepToken(host: PanelHost, token: string): void {
  host.history.replaceState(host.history.state, '', withoutToken(host));
  storage(host, (s) => {
    s.setItem(TOKEN_KEY, token);
    s.removeItem(ACCEPTED_KEY);
  });
}

/**
 * The web panel's token: taken from the URL fragment (`#token=…`, never sent to a server), then removed from
 * the address bar and history. Kept in this tab's sessionStorage so a reload still works.
 */
export function takeToken(host: PanelHost): string | undefined {
  const token = tokenInHash(host.location.hash);
  if (token) {
    keepToken(host, token);
    return token;
  }
  try {
    return host.sessionStorage?.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function wasAccepted(host: PanelHost): boolean {
  try {
    return host.sessionStorage?.getItem(ACCEPTED_KEY) === '1';
  } catch {
    return false;
  }
}

/**
 * IPC when running inside the desktop app, else HTTP to the server that served this page, with the
 * panel's own token from the link (not the assistants' token, which "make a new token" rotates).
 */
export function createPanelTransport(host: PanelHost = window): Transport {
  if (host.sandpit) return createIpcTransport(host.sandpit);
  const token = takeToken(host) ?? '';
  return createHttpTransport({
    token,
    accepted: token !== '' && wasAccepted(host),
    onAccepted: () => storage(host, (s) => s.setItem(ACCEPTED_KEY, '1')),
  });
}
