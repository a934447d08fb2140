import { describe, expect, it } from 'vitest';
import { createRouter } from './router';
import type { HttpRoute } from './router';

const handler = async (): Promise<void> => undefined;
const route = (path: string, extra: Partial<HttpRoute> = {}): HttpRoute => ({
  path,
  methods: ['GET'],
  handler,
  ...extra,
});

describe('createRouter', () => {
  it('matches exact paths, then the longest prefix', () => {
    const health = route('/health');
    const api = route('/api', { match: 'prefix' });
    const events = route('/api/events');
    const deep = route('/api/deep', { match: 'prefix' });
    const router = createRouter([health, api, events, deep]);
    expect(router.find('/health')).toBe(health);
    expect(router.find('/health/')).toBeUndefined();
    expect(router.find('/healthz')).toBeUndefined();
    expect(router.find('/api/events')).toBe(events);
    expect(router.find('/api/sessions.list')).toBe(api);
    expect(router.find('/api')).toBe(api);
    expect(router.find('/apix')).toBeUndefined();
    expect(router.find('/api/deep/x')).toBe(deep);
  });

  it('refuses two routes on one path', () => {
    expect(() => createRouter([route('/mcp'), route('/mcp')])).toThrow(/mcp/);
    expect(() => createRouter([route('x')])).toThrow(/start with/);
  });
});
