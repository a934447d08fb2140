import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';
import { httpStatusFor } from './http-errors';

describe('httpStatusFor', () => {
  it.each<[ErrorCode, number]>([
    ['INVALID_INPUT', 400],
    ['UNAUTHORIZED', 401],
    ['DENIED', 403],
    ['NOT_FOUND', 404],
    ['SESSION_NOT_FOUND', 404],
    ['CONFLICT', 409],
    ['SESSION_BUSY', 409],
    ['LIMIT_EXCEEDED', 429],
    ['DOCKER_UNAVAILABLE', 503],
    ['IMAGE_MISSING', 503],
    ['EXEC_TIMEOUT', 504],
    ['INTERNAL', 500],
    ['EXEC_FAILED', 500],
    ['CONTAINER_DIED', 500],
  ])('%s → %i', (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });

  it('gives every code an error status', () => {
    for (const code of ERROR_CODES) expect(httpStatusFor(code)).toBeGreaterThanOrEqual(400);
  });
});
