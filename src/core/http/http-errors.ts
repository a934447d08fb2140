import type { ServerResponse } from 'node:http';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { ErrorBody, ErrorCode } from '../../shared/api/errors';

/** The one map from a stable error code to its HTTP status; anything not listed is a 500. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  DENIED: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  CONFLICT: 409,
  SESSION_BUSY: 409,
  LIMIT_EXCEEDED: 429,
  DOCKER_UNAVAILABLE: 503,
  IMAGE_MISSING: 503,
  EXEC_TIMEOUT: 504,
};

export function httpStatusFor(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}

/** A SandpitError whose HTTP status is not the code's usual one (413, 415, 408 …). */
export class HttpError extends SandpitError {
  constructor(
    readonly status: number,
    code: ErrorCode,
    message: string,
    /** The connection must be closed after the answer (the client may still be sending a body). */
    readonly closeConnection = false,
  ) {
    super(code, message);
  }
}

/** Headers every response carries, whoever writes it. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, {
    ...BASE_HEADERS,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Writes the error envelope `{ ok: false, error }`; the status comes from the code unless given. */
export function sendError(
  res: ServerResponse,
  error: unknown,
  status?: number,
  headers: Record<string, string> = {},
): void {
  const body = toErrorBody(error);
  sendErrorBody(res, status ?? (error instanceof HttpError ? error.status : httpStatusFor(body.code)), body, headers);
}

export function sendErrorBody(
  res: ServerResponse,
  status: number,
  body: ErrorBody,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, error: body }, headers);
}
