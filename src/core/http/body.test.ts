import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseJson, readJsonBody } from './body';
import { HttpError } from './http-errors';

const LIMITS = { maxBytes: 1_024, timeoutMs: 2_000 };

function request(chunks: Array<string | Buffer>, headers: Record<string, string> = {}): IncomingMessage {
  return Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), { headers }) as unknown as IncomingMessage;
}

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('parseJson', () => {
  it('parses UTF-8 JSON; empty is undefined', () => {
    expect(parseJson(Buffer.from('{"a":[1,"é"]}'))).toEqual({ a: [1, 'é'] });
    expect(parseJson(Buffer.alloc(0))).toBeUndefined();
  });

  it('refuses malformed JSON and invalid UTF-8 with 400 INVALID_INPUT', () => {
    for (const bytes of [Buffer.from('{"a":'), Buffer.from('not json'), Buffer.from([0x7b, 0xff, 0x7d])]) {
      let caught: unknown;
      try {
        parseJson(bytes);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(HttpError);
      expect((caught as HttpError).status).toBe(400);
      expect((caught as HttpError).code).toBe('INVALID_INPUT');
    }
  });
});

describe('readJsonBody', () => {
  it('reads a body in any chunking', async () => {
    expect(await readJsonBody(request(['{"co', 'de":"print(1)"', '}']), LIMITS)).toEqual({ code: 'print(1)' });
  });

  it('accepts exactly the limit', async () => {
    const text = JSON.stringify('x'.repeat(LIMITS.maxBytes - 2));
    expect(await readJsonBody(request([text]), LIMITS)).toHaveLength(LIMITS.maxBytes - 2);
  });

  it('refuses one byte over the limit with 413, and closes the connection', async () => {
    const error = await failure(readJsonBody(request(['"', 'x'.repeat(LIMITS.maxBytes - 1), '"']), LIMITS));
    expect(error.status).toBe(413);
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.closeConnection).toBe(true);
  });

  it('refuses a declared Content-Length over the limit before reading anything', async () => {
    const stream = new PassThrough();
    const req = Object.assign(stream, {
      headers: { 'content-length': String(LIMITS.maxBytes + 1) },
    }) as unknown as IncomingMessage;
    expect((await failure(readJsonBody(req, LIMITS))).status).toBe(413);
    expect(stream.readableFlowing).toBeNull();
  });

  it('stops at the limit of an endless body without buffering it', async () => {
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    const req = Object.assign(endless, { headers: {} }) as unknown as IncomingMessage;
    expect((await failure(readJsonBody(req, { maxBytes: 1024 * 1024, timeoutMs: 5_000 }))).status).toBe(413);
    endless.destroy();
  });

  it('gives up on a body that does not arrive in time (408)', async () => {
    const stream = new PassThrough();
    stream.write('{');
    const req = Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
    const error = await failure(readJsonBody(req, { maxBytes: 1_024, timeoutMs: 50 }));
    expect(error.status).toBe(408);
    stream.destroy();
  });

  it('reports malformed JSON as 400 and an empty body as undefined', async () => {
    expect((await failure(readJsonBody(request(['{oops']), LIMITS))).status).toBe(400);
    expect(await readJsonBody(request([]), LIMITS)).toBeUndefined();
  });
});
