import { z } from 'zod';

/** Stable error codes: they cross every boundary (IPC, HTTP, MCP) unchanged. */
export const ERROR_CODES = [
  'DOCKER_UNAVAILABLE',
  'IMAGE_MISSING',
  'SESSION_NOT_FOUND',
  'SESSION_BUSY',
  'EXEC_TIMEOUT',
  'EXEC_FAILED',
  'CONTAINER_DIED',
  'LIMIT_EXCEEDED',
  'INVALID_INPUT',
  'NOT_FOUND',
  'DENIED',
  'UNAUTHORIZED',
  'CONFLICT',
  'INTERNAL',
] as const;

export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

export const errorBodySchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The one error type Sandpit throws on purpose. Anything else becomes INTERNAL at a boundary. */
export class SandpitError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'SandpitError';
    this.code = code;
    this.details = details;
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isSandpitError(error: unknown, code?: ErrorCode): error is SandpitError {
  return error instanceof SandpitError && (code === undefined || error.code === code);
}

/** Any thrown value as a stable error body (unknown errors become INTERNAL, message kept). */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof SandpitError) return error.toBody();
  if (error instanceof z.ZodError) {
    return {
      code: 'INVALID_INPUT',
      message: error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message };
}
