import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES, SandpitError, isSandpitError, toErrorBody } from './errors';

const errorBodySchema = z.object({ code: z.enum(ERROR_CODES), message: z.string(), details: z.unknown().optional() }).strict();

describe('SandpitError', () => {
  it('carries a stable code, a message and optional details', () => {
    const error = new SandpitError('EXEC_TIMEOUT', 'The run took longer than 60000 ms.', { timeoutMs: 60_000 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SandpitError');
    expect(error.code).toBe('EXEC_TIMEOUT');
    expect(error.toBody()).toEqual({
      code: 'EXEC_TIMEOUT',
      message: 'The run took longer than 60000 ms.',
      details: { timeoutMs: 60_000 },
    });
  });

  it('leaves details out of the body when there are none', () => {
    expect(Object.keys(new SandpitError('DENIED', 'no').toBody())).toEqual(['code', 'message']);
  });
});

describe('isSandpitError', () => {
  it('checks the type and, when given, the code', () => {
    const error = new SandpitError('DENIED', 'no');
    expect(isSandpitError(error)).toBe(true);
    expect(isSandpitError(error, 'DENIED')).toBe(true);
    expect(isSandpitError(error, 'INTERNAL')).toBe(false);
    expect(isSandpitError(new Error('no'))).toBe(false);
    expect(isSandpitError({ code: 'DENIED', message: 'no' })).toBe(false);
  });
});

describe('toErrorBody', () => {
  it('keeps the code, message and details of a SandpitError', () => {
    expect(toErrorBody(new SandpitError('SESSION_NOT_FOUND', 'No session "s".', { sessionId: 's' }))).toEqual({
      code: 'SESSION_NOT_FOUND',
      message: 'No session "s".',
      details: { sessionId: 's' },
    });
  });

  it('turns a ZodError into INVALID_INPUT naming each field by its path', () => {
    const schema = z.object({ code: z.string(), limits: z.object({ memoryMb: z.number() }) });
    const parsed = schema.safeParse({ code: 1, limits: { memoryMb: 'lots' } });
    if (parsed.success) throw new Error('expected a parse failure');
    const body = toErrorBody(parsed.error);
    expect(body.code).toBe('INVALID_INPUT');
    const parts = body.message.split('; ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/^code: /);
    expect(parts[1]).toMatch(/^limits\.memoryMb: /);
  });

  it('says "input" for a ZodError about the whole input', () => {
    const parsed = z.object({}).safeParse('nope');
    if (parsed.success) throw new Error('expected a parse failure');
    expect(toErrorBody(parsed.error).message).toMatch(/^input: /);
  });

  it('turns any other Error into INTERNAL with its message', () => {
    expect(toErrorBody(new TypeError('x is not a function'))).toEqual({
      code: 'INTERNAL',
      message: 'x is not a function',
    });
  });

  it('turns a thrown string or other value into INTERNAL with its text', () => {
    expect(toErrorBody('plain text')).toEqual({ code: 'INTERNAL', message: 'plain text' });
    expect(toErrorBody(42)).toEqual({ code: 'INTERNAL', message: '42' });
    expect(toErrorBody(undefined)).toEqual({ code: 'INTERNAL', message: 'undefined' });
  });

  it('always returns a body that satisfies the error body schema', () => {
    for (const error of [new SandpitError('CONFLICT', 'c', [1]), new Error('e'), 'text', null]) {
      expect(errorBodySchema.safeParse(toErrorBody(error)).success).toBe(true);
    }
  });
});

describe('ERROR_CODES', () => {
  it('includes the codes the design promises', () => {
    expect(ERROR_CODES).toEqual(
      expect.arrayContaining([
        'DOCKER_UNAVAILABLE',
        'IMAGE_MISSING',
        'SESSION_NOT_FOUND',
        'EXEC_TIMEOUT',
        'LIMIT_EXCEEDED',
        'INVALID_INPUT',
        'DENIED',
      ]),
    );
  });
});
