import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { allowedOrigins, bearerToken, guardRequest, isAllowedHost, isAllowedOrigin, isJsonContentType } from './guard';
import type { GuardDecision } from './guard';
import { generateToken, principalOf } from '../connect/token';

const PORT = 7411;
const TOKEN = generateToken();
const HOST = `127.0.0.1:${PORT}`;

function decide(method: string, headers: IncomingHttpHeaders, isPublic = false): GuardDecision {
  return guardRequest({ method, headers: { host: HOST, ...headers }, isPublic }, { port: PORT, token: TOKEN });
}

function status(decision: GuardDecision): number | string {
  return decision.kind === 'reject' ? decision.status : decision.kind;
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { 'content-type': 'application/json' };

describe('isAllowedHost', () => {
  it.each(['127.0.0.1:7411', 'localhost:7411', 'LOCALHOST:7411', '[::1]:7411'])('accepts %s', (host) => {
    expect(isAllowedHost(host, PORT)).toBe(true);
  });

  it.each([
    undefined,
    '',
    '127.0.0.1',
    'localhost',
    '127.0.0.1:7412',
    'evil.example:7411',
    'evil.example',
    '127.0.0.2:7411',
    'localhost.:7411',
    '0.0.0.0:7411',
    'localhost:7411.evil.example',
    '[::1]',
    '::1:7411',
  ])('refuses %s', (host) => {
    expect(isAllowedHost(host, PORT)).toBe(false);
  });

  it('accepts bare loopback names only on port 80', () => {
    expect(isAllowedHost('localhost', 80)).toBe(true);
    expect(isAllowedHost('127.0.0.1', 80)).toBe(true);
  });
});

describe('isAllowedOrigin', () => {
  it('accepts no Origin and exactly our origins', () => {
    expect(isAllowedOrigin(undefined, PORT)).toBe(true);
    for (const origin of allowedOrigins(PORT)) expect(isAllowedOrigin(origin, PORT)).toBe(true);
    expect(allowedOrigins(PORT)).toEqual(['http://127.0.0.1:7411', 'http://localhost:7411', 'http://[::1]:7411']);
  });

  it.each([
    'null',
    '',
    'http://evil.example',
    'http://127.0.0.1:7412',
    'https://127.0.0.1:7411',
    'http://127.0.0.1',
    'http://localhost:7411/',
    'http://localhost:7411.evil.example',
    'file://',
  ])('refuses %j', (origin) => {
    expect(isAllowedOrigin(origin, PORT)).toBe(false);
  });
});

describe('bearerToken', () => {
  it('reads the bearer scheme only', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`Basic ${TOKEN}`)).toBeUndefined();
    expect(bearerToken(TOKEN)).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken(`Bearer ${TOKEN} extra`)).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json; charset="utf-8"',
  ])('accepts %s', (type) => {
    expect(isJsonContentType(type)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/jsonx',
    'text/json',
  ])('refuses %s', (type) => {
    expect(isJsonContentType(type)).toBe(false);
  });
});

describe('guardRequest', () => {
  it('allows a request with our Host, no Origin and the token, naming the principal (never the token)', () => {
    const decision = decide('GET', auth);
    expect(decision).toEqual({ kind: 'allow', principal: principalOf(TOKEN) });
  });

  it('checks Host first: a rebound name is 403 even with the right token', () => {
    const decision = guardRequest(
      { method: 'GET', headers: { host: `evil.example:${PORT}`, ...auth }, isPublic: false },
      { port: PORT, token: TOKEN },
    );
    expect(decision).toMatchObject({ kind: 'reject', status: 403, error: { code: 'DENIED' } });
    expect(
      status(guardRequest({ method: 'GET', headers: { ...auth }, isPublic: true }, { port: PORT, token: TOKEN })),
    ).toBe(403);
  });

  it('checks Origin next: a foreign one is 403 even with the token, a public route, or a preflight', () => {
    expect(decide('POST', { ...auth, ...json, origin: 'http://evil.example' })).toMatchObject({
      status: 403,
      error: { code: 'DENIED' },
    });
    expect(status(decide('GET', { origin: 'http://evil.example' }, true))).toBe(403);
    expect(status(decide('OPTIONS', { origin: 'http://evil.example' }))).toBe(403);
    expect(status(decide('GET', { ...auth, origin: 'null' }))).toBe(403);
  });

  it('answers a preflight from our own origin without asking for the token', () => {
    expect(decide('OPTIONS', { origin: `http://localhost:${PORT}` })).toEqual({ kind: 'preflight' });
  });

  it('needs the token everywhere but public routes: 401 with WWW-Authenticate', () => {
    const missing = decide('GET', {});
    expect(missing).toMatchObject({
      kind: 'reject',
      status: 401,
      error: { code: 'UNAUTHORIZED' },
      headers: { 'www-authenticate': expect.stringMatching(/^Bearer/) as unknown },
    });
    expect(status(decide('GET', { authorization: `Bearer ${generateToken()}` }))).toBe(401);
    expect(status(decide('GET', { authorization: `Bearer ${TOKEN}x` }))).toBe(401);
    expect(status(decide('GET', { authorization: `Basic ${TOKEN}` }))).toBe(401);
    expect(decide('GET', {}, true)).toEqual({ kind: 'allow', principal: undefined });
  });

  it('never reveals the token in a refusal', () => {
    const refusal = decide('GET', { authorization: 'Bearer nope' });
    expect(JSON.stringify(refusal)).not.toContain(TOKEN);
  });

  it('needs a JSON content type for POST, PUT and PATCH (415), checked after the token', () => {
    for (const method of ['POST', 'PUT', 'PATCH']) {
      expect(status(decide(method, { ...auth, 'content-type': 'text/plain' }))).toBe(415);
      expect(status(decide(method, { ...auth }))).toBe(415);
      expect(status(decide(method, { ...auth, ...json }))).toBe('allow');
    }
    expect(status(decide('POST', { 'content-type': 'text/plain' }))).toBe(401);
    expect(status(decide('GET', { ...auth }))).toBe('allow');
    expect(status(decide('DELETE', { ...auth }))).toBe('allow');
  });

  it('refuses compressed bodies (no decompression bombs)', () => {
    expect(status(decide('POST', { ...auth, ...json, 'content-encoding': 'gzip' }))).toBe(415);
    expect(status(decide('POST', { ...auth, ...json, 'content-encoding': 'identity' }))).toBe('allow');
  });
});
