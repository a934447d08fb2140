import { describe, expect, it } from 'vitest';
import { formatRoute, pageTitle, parseRoute, sameRoute, tokenInHash } from './routes';

describe('routes', () => {
  it('reads and writes one address per screen and per session', () => {
    expect(parseRoute('#/activity')).toEqual({ screen: 'activity' });
    expect(parseRoute('#/sessions/ses-1a2b')).toEqual({ screen: 'sessions', sessionId: 'ses-1a2b' });
    expect(parseRoute('#/getting-started')).toEqual({ screen: 'getting-started' });
    expect(parseRoute('#/settings/')).toEqual({ screen: 'settings' });
    expect(parseRoute('#/settings/x')).toEqual({ screen: 'settings' });
    for (const hash of ['', '#', '#token=abc', '#/nowhere', '#sessions']) expect(parseRoute(hash)).toBeUndefined();
    expect(formatRoute({ screen: 'sessions', sessionId: 'ses 1' })).toBe('#/sessions/ses%201');
    expect(parseRoute(formatRoute({ screen: 'sessions', sessionId: 'ses 1' }))).toEqual({ screen: 'sessions', sessionId: 'ses 1' });
    expect(formatRoute({ screen: 'connect' })).toBe('#/connect');
    expect(sameRoute({ screen: 'sessions' }, { screen: 'sessions', sessionId: undefined })).toBe(true);
  });

  it('finds a pasted panel token, also after a route', () => {
    expect(tokenInHash('#token=abc_DEF-1')).toBe('abc_DEF-1');
    expect(tokenInHash('#/activity&token=xyz')).toBe('xyz');
    expect(tokenInHash('#/activity')).toBeUndefined();
    expect(tokenInHash('#notatoken=1')).toBeUndefined();
  });

  it('names the screen (and the session) in the page title', () => {
    expect(pageTitle({ screen: 'activity' })).toBe('Activity — Sandpit');
    expect(pageTitle({ screen: 'sessions', sessionId: 's' }, 'Python 2')).toBe('Python 2 — Sessions — Sandpit');
  });
});
