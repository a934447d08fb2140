/**
 * The panel's addresses: one hash route per screen and per session (`#/sessions/<id>`), so Back and
 * Forward work in a browser and in the desktop app (file:// + hash), and a screen can be linked to.
 */

/** The screens of the left navigation, in its order. */
export const SCREENS = ['sessions', 'environments', 'artifacts', 'snapshots', 'activity', 'connect', 'settings'] as const;
export type NavScreen = (typeof SCREENS)[number];

/** Every screen, including the getting-started guide (opened from Sessions and Connect, not from the navigation). */
export type Screen = NavScreen | 'getting-started';

const ALL_SCREENS: readonly Screen[] = [...SCREENS, 'getting-started'];

export interface Route {
  screen: Screen;
  /** The session opened on the Sessions screen. */
  sessionId?: string;
}

export const HOME: Route = { screen: 'sessions' };

/** `#/sessions/ses-1` → the route; anything else (empty, a token, an unknown screen) → undefined. */
export function parseRoute(hash: string): Route | undefined {
  const match = /^#?\/([a-z-]+)(?:\/([^/?#&]+))?\/?$/.exec(hash);
  if (!match) return undefined;
  const screen = match[1] as Screen;
  if (!ALL_SCREENS.includes(screen)) return undefined;
  if (match[2] === undefined) return { screen };
  if (screen !== 'sessions') return { screen };
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(match[2]);
  } catch {
    return { screen };
  }
  return { screen, sessionId };
}

export function formatRoute(route: Route): string {
  return route.screen === 'sessions' && route.sessionId ? `#/sessions/${encodeURIComponent(route.sessionId)}` : `#/${route.screen}`;
}

export function sameRoute(a: Route, b: Route): boolean {
  return a.screen === b.screen && (a.sessionId ?? '') === (b.sessionId ?? '');
}

/** A panel token in an address's fragment (`#token=…`, also after a route: `#/sessions&token=…`). */
export function tokenInHash(hash: string): string | undefined {
  const match = /(?:^#?|[&?])token=([A-Za-z0-9._~+/=-]+)/.exec(hash);
  return match?.[1];
}

export const SCREEN_TITLES: Record<Screen, string> = {
  sessions: 'Sessions',
  environments: 'Environments',
  artifacts: 'Artifacts',
  snapshots: 'Snapshots',
  activity: 'Activity',
  connect: 'Connect',
  settings: 'Settings',
  'getting-started': 'Getting started',
};

/** The page title: the screen (and the session's name) first, so tabs and history read well. */
export function pageTitle(route: Route, sessionName?: string): string {
  const parts = [SCREEN_TITLES[route.screen], 'Sandpit'];
  if (route.screen === 'sessions' && route.sessionId) parts.unshift(sessionName ?? 'Session');
  return parts.join(' — ');
}
