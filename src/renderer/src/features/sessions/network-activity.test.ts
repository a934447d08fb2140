import { describe, expect, it } from 'vitest';
import { isCovered, passageWords } from './network-activity';

describe('network activity words', () => {
  it('says "reached" only for a connection that reached its host, with its answer; a failed one says why', () => {
    expect(passageWords({ host: 'pypi.org', connected: true })).toBe('reached pypi.org');
    expect(passageWords({ host: 'api.github.com', connected: true, answer: 'answered 502 Bad Gateway' })).toBe('reached api.github.com — it answered 502 Bad Gateway');
    expect(passageWords({ host: 'pypi.org', connected: false, answer: 'its address could not be found (is this computer offline?)' })).toBe(
      'let through to pypi.org, but the connection failed: its address could not be found (is this computer offline?)',
    );
    expect(passageWords({ host: 'pypi.org' })).toBe('let through to pypi.org (connecting…)');
  });

  it('knows which blocked hosts an allow-list covers now', () => {
    expect(isCovered('files.example.org', ['*.example.org'])).toBe(true);
    expect(isCovered('Files.Example.org', ['files.example.org'])).toBe(true);
    expect(isCovered('example.org', ['*.example.org'])).toBe(false);
  });
});
