import type { PanelState, PanelStore } from './panel-store';
import { HOME, formatRoute, pageTitle, parseRoute, sameRoute, tokenInHash } from './routes';
import type { Route } from './routes';

/** The parts of `window` the router uses (tests pass a plain object). */
export interface RouterHost {
  location: Pick<Location, 'hash'>;
  history: Pick<History, 'state' | 'pushState' | 'replaceState'>;
  addEventListener(type: 'popstate' | 'hashchange', listener: () => void): void;
  removeEventListener(type: 'popstate' | 'hashchange', listener: () => void): void;
  document?: { title: string };
}

export interface RouterOptions {
  /** A panel link pasted into this tab (`#token=…`): take its token (and take it out of the address). */
  onToken?: (token: string) => void;
}

function routeOf(state: Pick<PanelState, 'screen' | 'openSessionId'>): Route {
  return state.openSessionId ? { screen: state.screen, sessionId: state.openSessionId } : { screen: state.screen };
}

function titleOf(state: PanelState): string {
  const route = routeOf(state);
  const name = route.sessionId ? state.sessions.find((s) => s.id === route.sessionId)?.name : undefined;
  return pageTitle(route, name);
}

/**
 * Keeps the address bar and the panel's screen in step: every navigation is a history entry (so Back and
 * Forward work), an address typed or pasted is shown, and the page title names the screen. A pasted
 * panel link is handed to `onToken` without a reload. Returns the function that stops.
 */
export function bindRouter(store: PanelStore, host: RouterHost, options: RouterOptions = {}): () => void {
  const start = parseRoute(host.location.hash);
  if (start) store.getState().applyRoute(start);
  host.history.replaceState(host.history.state, '', formatRoute(routeOf(store.getState())));
  if (host.document) host.document.title = titleOf(store.getState());

  const stopStore = store.subscribe((state, previous) => {
    const route = routeOf(state);
    if (!sameRoute(route, routeOf(previous))) {
      const shown = parseRoute(host.location.hash);
      if (!shown || !sameRoute(shown, route)) host.history.pushState(null, '', formatRoute(route));
    }
    if (host.document) {
      const title = titleOf(state);
      if (host.document.title !== title) host.document.title = title;
    }
  });

  const onLocation = (): void => {
    const token = tokenInHash(host.location.hash);
    if (token) {
      options.onToken?.(token);
      if (!parseRoute(host.location.hash)) host.history.replaceState(host.history.state, '', formatRoute(routeOf(store.getState())));
      return;
    }
    const route = parseRoute(host.location.hash) ?? HOME;
    const current = routeOf(store.getState());
    if (sameRoute(route, current)) return;
    // Asked to stay (unsaved changes): the address goes back to what is shown.
    if (!store.getState().applyRoute(route)) host.history.pushState(null, '', formatRoute(current));
  };
  host.addEventListener('popstate', onLocation);
  host.addEventListener('hashchange', onLocation);
  return () => {
    stopStore();
    host.removeEventListener('popstate', onLocation);
    host.removeEventListener('hashchange', onLocation);
  };
}
