import { describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import type { EngineEndpoint } from './docker-client';
import { dockerFixHint, mapDockerError } from './docker-errors';

const LOCAL: EngineEndpoint = { kind: 'local', address: '/var/run/docker.sock' };
const REMOTE: EngineEndpoint = { kind: 'remote', address: 'tcp://10.0.0.5:2376' };

function errnoError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function httpError(statusCode: number, message: string): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode, json: { message } });
}

describe('dockerFixHint', () => {
  it('tells how to start a local engine and names its socket', () => {
    const hint = dockerFixHint(LOCAL);
    expect(hint).toContain('Start Docker');
    expect(hint).toContain('/var/run/docker.sock');
  });

  it('tells how to reach a remote engine or go back to the local one', () => {
    const hint = dockerFixHint(REMOTE);
    expect(hint).toContain('tcp://10.0.0.5:2376');
    expect(hint).toContain('DOCKER_HOST');
  });
});

describe('mapDockerError', () => {
  it.each(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'])(
    'maps %s to DOCKER_UNAVAILABLE with a fix',
    (code) => {
      const mapped = mapDockerError(
        errnoError(code, `connect ${code} /var/run/docker.sock`),
        'create container',
        LOCAL,
      );
      expect(mapped.code).toBe('DOCKER_UNAVAILABLE');
      expect(mapped.message).toContain('/var/run/docker.sock');
      expect(mapped.message).toContain(dockerFixHint(LOCAL));
    },
  );

  it('recognises an unreachable engine from the message alone', () => {
    expect(mapDockerError(new Error('socket hang up'), 'ping', LOCAL).code).toBe('DOCKER_UNAVAILABLE');
    expect(mapDockerError(new Error('connect ECONNREFUSED 10.0.0.5:2376'), 'ping', REMOTE).code).toBe(
      'DOCKER_UNAVAILABLE',
    );
  });

  it('gives the remote fix for a remote engine', () => {
    const mapped = mapDockerError(errnoError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:2376'), 'ping', REMOTE);
    expect(mapped.message).toContain(dockerFixHint(REMOTE));
  });

  it('keeps the original message as the cause', () => {
    const mapped = mapDockerError(errnoError('ENOENT', 'connect ENOENT /var/run/docker.sock'), 'ping', LOCAL);
    expect(mapped.details).toEqual({ cause: 'connect ENOENT /var/run/docker.sock' });
  });

  it('maps a 404 about an image to IMAGE_MISSING with how to build it', () => {
    const mapped = mapDockerError(httpError(404, 'No such image: sandpit-python:abc'), 'create container', LOCAL);
    expect(mapped.code).toBe('IMAGE_MISSING');
    expect(mapped.message).toContain('No such image: sandpit-python:abc');
    expect(mapped.message).toContain('npm run build:images');
  });

  it('maps any other 404 to NOT_FOUND naming what was being done', () => {
    const mapped = mapDockerError(httpError(404, 'No such container: abc123'), 'inspect container', LOCAL);
    expect(mapped.code).toBe('NOT_FOUND');
    expect(mapped.message).toBe('inspect container: No such container: abc123');
  });

  it('maps 409 to CONFLICT', () => {
    const mapped = mapDockerError(
      httpError(409, 'Conflict. The container name "/sandpit-ses-1" is already in use'),
      'create container',
      LOCAL,
    );
    expect(mapped.code).toBe('CONFLICT');
    expect(mapped.message).toContain('already in use');
  });

  it('maps anything else to INTERNAL with the status code', () => {
    const mapped = mapDockerError(httpError(500, 'driver failed'), 'start container', LOCAL);
    expect(mapped.code).toBe('INTERNAL');
    expect(mapped.message).toBe('Docker failed to start container: driver failed');
    expect(mapped.details).toEqual({ statusCode: 500 });
  });

  it('maps a thrown non-Error to INTERNAL with its text', () => {
    const mapped = mapDockerError('weird', 'ping', LOCAL);
    expect(mapped.code).toBe('INTERNAL');
    expect(mapped.message).toContain('weird');
  });

  it('passes a SandpitError through unchanged', () => {
    const original = new SandpitError('LIMIT_EXCEEDED', 'too many');
    expect(mapDockerError(original, 'x', LOCAL)).toBe(original);
  });

  it('turns a call that did not finish in time into DOCKER_UNAVAILABLE', () => {
    const mapped = mapDockerError(new SandpitError('INTERNAL', 'ping did not finish within 5000 ms'), 'ping', LOCAL);
    expect(mapped.code).toBe('DOCKER_UNAVAILABLE');
    expect(mapped.message).toContain('did not answer (ping)');
    expect(mapped.message).toContain(dockerFixHint(LOCAL));
  });
});

describe('Docker Desktop file sharing', () => {
  it.each([
    'Mounts denied: \nThe path /Users/me/data is not shared from the host and is not known to Docker.\nYou can configure shared paths from Docker -> Preferences... -> Resources -> File Sharing.',
    'error while creating mount source path \'/Users/me/data\': mkdir /Users/me: not known to Docker',
  ])('says the folder is not shared and how to share it: %s', (message) => {
    const error = mapDockerError(httpError(500, message), 'start container', LOCAL);
    expect(error.code).toBe('DENIED');
    expect(error.message).toContain('Docker Desktop → Settings → Resources → File sharing');
    expect((error.details as { reason: string }).reason).toBe('docker-file-sharing');
  });

  it('names the refused folder', () => {
    const error = mapDockerError(httpError(500, 'Mounts denied: \nThe path /Users/me/data is not shared from the host and is not known to Docker.'), 'start container', LOCAL);
    expect(error.message).toContain('the folder /Users/me/data');
  });
});
