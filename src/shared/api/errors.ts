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

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What crosses a boundary for an error. (No zod here: `sandpit mcp` bridging loads this and must start at once.) */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

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
  if (isZodError(error)) {
    return {
      code: 'INVALID_INPUT',
      message: error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message };
}

/** A zod validation error, known by its shape (zod's class is not imported here). */
function isZodError(error: unknown): error is Error & { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}
