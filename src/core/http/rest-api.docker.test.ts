import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../test-support/http-client';
import type { RawResponse } from '../../test-support/http-client';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { startHttpServer } from './http-server';
import type { RunningHttpServer } from './http-server';
import type { RestExecuteResponse } from './rest-execute';
import { generateToken } from '../connect/token';

const TOKEN = generateToken();
const AUTH = { authorization: `Bearer ${TOKEN}` };
const PANEL_TOKEN = generateToken();
const PANEL_AUTH = { authorization: `Bearer ${PANEL_TOKEN}` };
const JSON_TYPE = { 'content-type': 'application/json' };

let sandpit: TestSandpit;
let http: RunningHttpServer;

beforeAll(async () => {
  sandpit = await startTestSandpit();
  http = await startHttpServer({ sandpit, port: 0, token: TOKEN, panelToken: PANEL_TOKEN });
});

afterAll(async () => {
  await http?.close();
  await sandpit?.cleanup();
});

afterEach(() => {
  // Every REST run stops its session, whatever happened.
  expect(sandpit.sessions.list()).toEqual([]);
});

function post(path: string, body: unknown): Promise<RawResponse> {
  return rawRequest({
    port: http.port,
    method: 'POST',
    path,
    headers: { ...AUTH, ...JSON_TYPE },
    body: JSON.stringify(body),
    timeoutMs: 60_000,
  });
}

async function execute(body: unknown): Promise<RestExecuteResponse> {
  const res = await post('/execute', body);
  expect(res.status, res.text).toBe(200);
  return res.json as RestExecuteResponse;
}

describe('REST', () => {
  it('POST /execute runs code and answers {stdout, stderr, exit_code, artifacts}', async () => {
    const out = await execute({ code: 'import sys\nprint("hello")\nprint("careful", file=sys.stderr)' });
    expect(out).toEqual({ stdout: 'hello\n', stderr: 'careful\n', exit_code: 0, artifacts: [] });
  });

  it('reports an exception with exit code 1 and the traceback on stderr', async () => {
    const out = await execute({ code: 'print("before")\n1 / 0' });
    expect(out.exit_code).toBe(1);
    expect(out.stdout).toBe('before\n');
    expect(out.stderr).toContain('ZeroDivisionError');
  });

  it('stops a run over its timeout (seconds) with exit code 124', async () => {
    const started = Date.now();
    const out = await execute({ code: 'while True: pass', timeout: 1 });
    expect(out.exit_code).toBe(124);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('uploads files first, so the code can read them', async () => {
    const out = await execute({
      code: 'print(open("/workspace/data/in.txt").read())',
      files: { 'data/in.txt': 'héllo from a file' },
    });
    expect(out.stdout).toBe('héllo from a file\n');
    expect(out.exit_code).toBe(0);
  });

  it('returns files the code writes to /workspace as artifacts', async () => {
    const out = await execute({ code: 'open("/workspace/result.csv", "w").write("a,b\\n1,2\\n")' });
    expect(out.artifacts).toEqual([
      {
        path: 'result.csv',
        mime: expect.stringMatching(/^text\/csv/) as unknown,
        size: 8,
        sha256: createHash('sha256').update('a,b\n1,2\n').digest('hex'),
      },
    ]);
  });

  it('runs in the environment env names (by id or by name), refuses an unknown one naming those that exist, and checks input', async () => {
    expect((await execute({ code: 'print(1)', env: 'python' })).stdout).toBe('1\n');
    expect((await execute({ code: 'echo $((6 * 7))', env: 'Bash' })).stdout).toBe('42\n');
    const other = await post('/execute', { code: 'print(1)', env: 'data-science' });
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/There is no environment "data-science"\. The environments are: "python" \(Python\), "python-data" \(Python \(data\)\)/) as unknown,
      },
    });
    const mismatch = await post('/execute', { code: 'print(1)', env: 'node', language: 'python' });
    expect(mismatch.status).toBe(400);
    expect(JSON.stringify(mismatch.json)).toContain('is for JavaScript, not Python');
    expect((await post('/execute', { code: 'x', files: { '../escape.txt': 'no' } })).status).toBe(400);
  });

  it('stops the session (and its run) when the client goes away', async () => {
    const req = request({
      host: '127.0.0.1',
      port: http.port,
      method: 'POST',
      path: '/execute',
      headers: { ...AUTH, ...JSON_TYPE },
      agent: false,
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ code: 'import time\ntime.sleep(60)' }));
    await waitFor(() => sandpit.sessions.list().some((s) => s.state === 'busy'), 30_000);
    req.destroy();
    await waitFor(() => sandpit.sessions.list().length === 0, 20_000);
  });

  it('GET /list-envs lists the environments (the built-in ones here) with their language and status', async () => {
    const res = await rawRequest({ port: http.port, path: '/list-envs', headers: AUTH });
    expect(res.status).toBe(200);
    const { environments } = res.json as { environments: Array<{ id: string; name: string; language: string; status: string }> };
    expect(environments.map((e) => [e.id, e.language])).toEqual([
      ['python', 'python'],
      ['python-data', 'python'],
      ['node', 'javascript'],
      ['bash', 'bash'],
      ['typescript', 'typescript'],
      ['r', 'r'],
    ]);
    expect(environments.find((e) => e.id === 'python')).toMatchObject({ name: 'Python', status: 'ready' });
  });

  it('POST /api/sessions.list answers with the envelope (panel token only)', async () => {
    expect((await post('/api/sessions.list', {})).status).toBe(403);
    const res = await rawRequest({ port: http.port, method: 'POST', path: '/api/sessions.list', headers: { ...PANEL_AUTH, ...JSON_TYPE }, body: '{}', timeoutMs: 10_000 });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, value: { sessions: [] } });
  });

  it('GET /api/events streams execution.output while a run streams', async () => {
    const stream = await openEvents(http.port);
    try {
      const run = execute({ code: 'import time\nprint("streamed-marker", flush=True)\ntime.sleep(1)\nprint("end")' });
      await waitFor(() => /event: execution\.output\ndata: \{[^\n]*streamed-marker/.test(stream.text()), 30_000);
      const marker = /event: execution\.output\ndata: (\{[^\n]*streamed-marker[^\n]*\})/.exec(stream.text())!;
      const { executionId } = JSON.parse(marker[1]!) as { executionId: string };
      const doneOf = (text: string): boolean => text.split('\n\n').some((e) => e.startsWith('event: execution.done') && e.includes(executionId));
      // The event came while this run was still going (other runs' events may be on the stream too).
      expect(doneOf(stream.text())).toBe(false);
      expect((await run).stdout).toBe('streamed-marker\nend\n');
      await waitFor(() => doneOf(stream.text()), 10_000);
    } finally {
      stream.close();
    }
  });
});

interface EventStream {
  text(): string;
  close(): void;
}

function openEvents(port: number): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/events', headers: { ...PANEL_AUTH, accept: 'text/event-stream' }, agent: false },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`events answered ${res.statusCode}`));
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', () => undefined);
        resolve({ text: () => text, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
