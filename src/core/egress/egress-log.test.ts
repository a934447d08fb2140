import { describe, expect, it } from 'vitest';
import { EgressLog } from './egress-log';

describe('EgressLog', () => {
  it('keeps what each session reached and was refused, newest first, in plain words', () => {
    const log = new EgressLog();
    log.allowed({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:00.000Z', sessionId: 'ses-a' });
    log.refused({ host: 'example.com', port: 443, time: '2026-12-01T10:00:01.000Z', reason: 'host-not-allowed', sessionId: 'ses-a' });
    log.refused({ host: 'evil.test', port: 443, time: '2026-12-01T10:00:02.000Z', reason: 'proxy-auth-required' });
    log.allowed({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:03.000Z', sessionId: 'ses-b' });
    expect(log.recent(10, 'ses-a')).toEqual([
      { time: '2026-12-01T10:00:01.000Z', sessionId: 'ses-a', host: 'example.com', port: 443, allowed: false, reason: 'not a package index, and not on this environment’s list of allowed hosts', reasonCode: 'host-not-allowed' },
      { time: '2026-12-01T10:00:00.000Z', sessionId: 'ses-a', host: 'pypi.org', port: 443, allowed: true },
    ]);
    expect(log.recent(10).map((e) => e.host)).toEqual(['pypi.org', 'evil.test', 'example.com', 'pypi.org']);
    // What a caller may see: only its own sessions, and no refusal that names none.
    expect(log.recent(10, undefined, (id) => id === 'ses-b').map((e) => e.sessionId)).toEqual(['ses-b']);
    expect(log.recent(1)).toHaveLength(1);
  });

  it('stays bounded', () => {
    const log = new EgressLog();
    for (let i = 0; i < 7_000; i += 1) log.allowed({ host: `h${i}.test`, port: 443, time: new Date(i).toISOString(), sessionId: 'ses-a' });
    expect(log.recent(10_000)).toHaveLength(5_000);
    expect(log.recent(10_000, 'ses-a')).toHaveLength(500);
    expect(log.recent(1, 'ses-a')[0]?.host).toBe('h6999.test');
  });

  it('tells a connection that reached its host from one that failed, on the entry it let through', () => {
    const log = new EgressLog();
    log.allowed({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:00.000Z', sessionId: 'ses-a' });
    log.allowed({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:01.000Z', sessionId: 'ses-a' });
    log.outcome({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:02.000Z', sessionId: 'ses-a', connected: false, answer: 'its address could not be found (is this computer offline?)' });
    log.outcome({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:03.000Z', sessionId: 'ses-a', connected: true });
    log.outcome({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:04.000Z', sessionId: 'ses-b', connected: true });
    expect(log.recent(10, 'ses-a').map((e) => [e.connected, e.answer])).toEqual([
      [false, 'its address could not be found (is this computer offline?)'],
      [true, undefined],
    ]);
  });

  it('keeps the name a session had, so a list names it after it has ended', () => {
    const names = new Map([['ses-a', 'Sales dashboard']]);
    const log = new EgressLog((id) => names.get(id));
    log.allowed({ host: 'pypi.org', port: 443, time: '2026-12-01T10:00:00.000Z', sessionId: 'ses-a' });
    names.delete('ses-a');
    log.refused({ host: 'example.com', port: 443, time: '2026-12-01T10:00:01.000Z', reason: 'host-not-allowed', sessionId: 'ses-a' });
    expect(log.recent(10).map((e) => [e.host, e.sessionName])).toEqual([
      ['example.com', undefined],
      ['pypi.org', 'Sales dashboard'],
    ]);
  });
});
