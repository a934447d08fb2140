// A session's history as a Jupyter notebook, and its replay in a fresh sandbox, on the real engine: the notebook is
// judged by nbformat's own validator, read through every surface (API, MCP resource with the SDK client, REST), and
// the replay's runs are audited rows that link to the originals.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReplayView } from '../../shared/domain/replay';
import { createMcpServer } from '../mcp/create-mcp-server';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { generateToken } from '../connect/token';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { rawRequest } from '../../test-support/http-client';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { validateNotebook } from '../../test-support/nbformat';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import type { CallContext } from './api-types';
import { call } from './dispatcher';

const PANEL: CallContext = { transport: 'http', client: 'panel' };
const CLIENT: CallContext = { transport: 'mcp-stdio', client: 'notebook-test', principal: 'p-notebook' };
const STRANGER: CallContext = { transport: 'mcp-stdio', client: 'stranger', principal: 'p-stranger' };

interface Cell {
  cell_type: string;
  source: string[];
  execution_count?: number | null;
  outputs?: Array<Record<string, unknown>>;
  metadata: { sandpit?: { auditId: number; method: string; status: string } };
}
interface Ipynb {
  nbformat: number;
  nbformat_minor: number;
  metadata: { kernelspec: { name: string }; language_info: { name: string } };
  cells: Cell[];
}

let sp: TestSandpit;
let http: RunningHttpServer;
let index: PackageIndex | undefined;
const TOKEN = generateToken();

beforeAll(async () => {
  // Installs come from a local package index on a network the test creates (no route out).
  index = await startPackageIndex(testDocker(), { image: inject('images').python! });
  // Python sessions on the data image: matplotlib draws the picture.
  sp = await startTestSandpit({
    images: { ...inject('images'), python: inject('images')['python-data']! },
    pipIndexUrl: index.url,
    installNetwork: index.network,
  });
  http = await startHttpServer({ sandpit: sp, port: 0, token: TOKEN, panelToken: generateToken() });
});
afterAll(async () => {
  await http?.close();
  await sp?.cleanup();
  await index?.stop();
});

describe('a session as a notebook', () => {
  let sessionId: string;
  let rows: number[];

  beforeAll(async () => {
    sessionId = (await call(sp.api, 'sessions.create', {}, CLIENT)).id;
    const runs = [
      await call(sp.api, 'sessions.execute', { sessionId, code: 'print("hello from the notebook")\n21 * 2' }, CLIENT),
      await call(sp.api, 'sessions.execute', { sessionId, code: 'def f():\n    return 1 / 0\nf()' }, CLIENT),
      await call(
        sp.api,
        'sessions.execute',
        { sessionId, code: ['import matplotlib.pyplot as plt', 'plt.plot([1, 2, 3], [1, 4, 9])', "plt.title('squares')", 'plt.show()'].join('\n') },
        CLIENT,
      ),
      await call(sp.api, 'sessions.runCommand', { sessionId, command: 'echo from bash; echo oops >&2' }, CLIENT),
    ];
    expect(runs.map((r) => r.auditId)).not.toContain(undefined);
    rows = runs.map((r) => r.auditId!);
    // The notebook is made from the audit log and the artifact store: it outlives the session.
    await call(sp.api, 'sessions.stop', { sessionId }, CLIENT);
  });

  it('validates with nbformat and holds each run as a cell with its stdout, error, picture and shell output', async () => {
    const notebook = await call(sp.api, 'audit.notebook', { sessionId }, CLIENT);
    expect(notebook.mime).toBe('application/x-ipynb+json');
    expect(notebook.fileName).toMatch(/\.ipynb$/);
    const verdict = validateNotebook(notebook.content);
    expect(verdict.output).toContain('"version": [4, 5]');
    expect(verdict.ok).toBe(true);

    const nb = JSON.parse(notebook.content) as Ipynb;
    expect(nb.metadata.kernelspec.name).toBe('python3');
    expect(nb.metadata.language_info.name).toBe('python');
    const cells = nb.cells.filter((c) => c.cell_type === 'code');
    expect(cells.map((c) => c.metadata.sandpit?.auditId)).toEqual(rows);
    expect(cells.map((c) => c.execution_count)).toEqual([1, 2, 3, 4]);

    const [hello, failing, plot, shell] = cells;
    expect(hello!.outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: ['hello from the notebook\n'] },
      { output_type: 'execute_result', execution_count: 1, data: { 'text/plain': ['42'] }, metadata: {} },
    ]);
    const error = failing!.outputs!.find((o) => o.output_type === 'error') as { ename: string; evalue: string; traceback: string[] };
    expect(error.ename).toBe('ZeroDivisionError');
    expect(error.evalue).toBe('division by zero');
    expect(error.traceback.join('\n')).toMatch(/in f\b/);
    const picture = plot!.outputs!.find((o) => o.output_type === 'display_data') as { data: Record<string, string> };
    const png = Buffer.from(picture.data['image/png']!, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(5_000);
    expect(shell!.source).toEqual(['%%bash\n', 'echo from bash; echo oops >&2']);
    expect(shell!.outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: ['from bash\n'] },
      { output_type: 'stream', name: 'stderr', text: ['oops\n'] },
    ]);
  });

  it('is an MCP resource, read through a real SDK client; another client gets not-found', async () => {
    const read = async (context: CallContext): Promise<{ text?: string; mimeType?: string }> => {
      const mcp = createMcpServer({ sandpit: sp, context: () => context });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcp.server.connect(serverSide);
      const client = new Client({ name: context.client ?? 'c', version: '1.0.0' });
      await client.connect(clientSide);
      try {
        const templates = await client.listResourceTemplates();
        expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('sandpit://sessions/{session_id}/notebook.ipynb');
        const result = await client.readResource({ uri: `sandpit://sessions/${sessionId}/notebook.ipynb` });
        return result.contents[0] as { text?: string; mimeType?: string };
      } finally {
        await client.close();
        await mcp.close();
      }
    };
    const mine = await read(CLIENT);
    expect(mine.mimeType).toBe('application/x-ipynb+json');
    expect(validateNotebook(mine.text ?? '').ok).toBe(true);
    expect((JSON.parse(mine.text ?? '{}') as Ipynb).cells.filter((c) => c.cell_type === 'code')).toHaveLength(4);
    await expect(read(STRANGER)).rejects.toThrow(/not found/);
  });

  it('is served by REST at /sessions/{id}/notebook.ipynb, to the token whose runs they were', async () => {
    const ran = await rawRequest({
      port: http.port,
      method: 'POST',
      path: '/execute',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'print("rest run")' }),
    });
    expect(ran.status).toBe(200);
    const { rows: restRows } = await call(sp.api, 'audit.list', { filters: { client: 'rest' }, limit: 5 }, PANEL);
    const restSession = restRows[0]!.sessionId!;
    const res = await rawRequest({ port: http.port, path: `/sessions/${restSession}/notebook.ipynb`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ipynb\+json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[A-Za-z0-9._-]+\.ipynb"$/);
    expect(validateNotebook(res.text).ok).toBe(true);
    expect(res.text).toContain('rest run');
    // The MCP client's session is not this token's: not found, and nothing of it is shown.
    const other = await rawRequest({ port: http.port, path: `/sessions/${sessionId}/notebook.ipynb`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('hello from the notebook');
    expect((await rawRequest({ port: http.port, path: `/sessions/${restSession}/notebook.ipynb` })).status).toBe(401);
  });
});

describe('replaying a session', () => {
  async function replayed(sessionId: string): Promise<ReplayView> {
    const updates: ReplayView[] = [];
    const off = sp.bus.on('replay.updated', (view) => updates.push(view));
    try {
      const first = await call(sp.api, 'audit.replay', { sessionId }, PANEL);
      expect(first.originalSessionId).toBe(sessionId);
      const done = await pollUntil(() => updates.find((u) => u.id === first.id && (u.state === 'done' || u.state === 'failed')), 180_000, 'the replay to end', 100);
      // Progress was live: each run was announced running before its result.
      expect(updates.some((u) => u.id === first.id && u.runs.some((r) => r.outcome === 'running'))).toBe(true);
      return done;
    } finally {
      off();
    }
  }

  it('repeats the runs in order in a fresh sandbox: deterministic ones match, random and time differ with a diff', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, CLIENT)).id;
    const originals = [
      await call(sp.api, 'sessions.execute', { sessionId, code: 'total = sum(range(10))\nprint("total", total)' }, CLIENT),
      await call(sp.api, 'sessions.execute', { sessionId, code: 'import random, time\nprint("same line")\nprint("random", random.random())\nprint("time", time.time_ns())' }, CLIENT),
      await call(sp.api, 'sessions.runCommand', { sessionId, command: 'echo shell says hi' }, CLIENT),
      await call(sp.api, 'sessions.execute', { sessionId, code: 'print(total * 2)' }, CLIENT),
    ];
    await call(sp.api, 'sessions.stop', { sessionId }, CLIENT);

    const view = await replayed(sessionId);
    expect(view.state).toBe('done');
    expect(view.replaySessionId).toBeDefined();
    expect(view.replaySessionId).not.toBe(sessionId);
    expect(view.recordedImage).toBe(view.image);
    expect(view.runs.map((r) => r.originalId)).toEqual(originals.map((o) => o.auditId));
    expect(view.runs.map((r) => r.outcome)).toEqual(['matched', 'differs', 'matched', 'matched']);

    const differs = view.runs[1]!;
    expect(differs.diffs.map((d) => d.part)).toEqual(['stdout']);
    const lines = differs.diffs[0]!.lines;
    expect(lines).toContainEqual({ op: 'same', text: 'same line' });
    expect(lines.filter((l) => l.op === 'removed').map((l) => l.text)).toEqual([expect.stringMatching(/^random /), expect.stringMatching(/^time /)]);
    expect(lines.filter((l) => l.op === 'added').map((l) => l.text)).toEqual([expect.stringMatching(/^random /), expect.stringMatching(/^time /)]);

    // Each replayed run is its own audit row, in the replay's session, linked to the original and back.
    for (const run of view.runs) {
      const replay = await call(sp.api, 'audit.get', { id: run.replayId! }, PANEL);
      expect(replay.replayOf).toBe(run.originalId);
      expect(replay.sessionId).toBe(view.replaySessionId);
      expect(replay.client).toBe('panel');
      const original = await call(sp.api, 'audit.get', { id: run.originalId }, PANEL);
      expect(original.replays).toEqual([run.replayId]);
      expect(replay.code).toBe(original.code);
    }
    const { rows: replayRows } = await call(sp.api, 'audit.list', { filters: { sessionId: view.replaySessionId! }, limit: 50 }, PANEL);
    expect(replayRows.map((r) => r.replayOf).sort()).toEqual(originals.map((o) => o.auditId).sort());
    expect((await call(sp.api, 'audit.verify', {}, PANEL)).ok).toBe(true);
    // The replay's session was stopped when it ended; its notebook is there like any other.
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(view.replaySessionId);
    expect(validateNotebook((await call(sp.api, 'audit.notebook', { sessionId: view.replaySessionId! }, PANEL)).content).ok).toBe(true);
  });

  it('repeats an install in its place, so the runs after it find the package', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, CLIENT)).id;
    const installed = await call(sp.api, 'packages.install', { sessionId, packages: ['sandpit_demo_a'] }, CLIENT);
    expect(installed.results.every((r) => r.ok)).toBe(true);
    const imported = await call(sp.api, 'sessions.execute', { sessionId, code: 'import sandpit_demo_a\nsandpit_demo_a.VALUE' }, CLIENT);
    expect(imported.result).toBe('42');
    await call(sp.api, 'sessions.stop', { sessionId }, CLIENT);

    const view = await replayed(sessionId);
    expect(view.runs.map((r) => [r.method, r.outcome])).toEqual([
      ['packages.install', 'matched'],
      ['sessions.execute', 'matched'],
    ]);
    const install = await call(sp.api, 'audit.get', { id: view.runs[0]!.replayId! }, PANEL);
    expect(install).toMatchObject({ method: 'packages.install', status: 'ok', replayOf: installed.auditId, sessionId: view.replaySessionId });
  });

  it('skips what never ran, shows a run whose input the log does not hold as a difference, and is the panel\'s alone', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', {}, CLIENT)).id;
    await call(sp.api, 'files.write', { sessionId, path: 'data.txt', content: 'uploaded\n' }, CLIENT);
    const reads = await call(sp.api, 'sessions.execute', { sessionId, code: 'print(open("data.txt").read())' }, CLIENT);
    expect(reads.stdout).toBe('uploaded\n\n');
    await expect(call(sp.api, 'sessions.runFile', { sessionId, path: 'missing.py' }, CLIENT)).rejects.toThrow();
    await call(sp.api, 'sessions.stop', { sessionId }, CLIENT);

    await expect(call(sp.api, 'audit.replay', { sessionId }, CLIENT)).rejects.toThrow(/Only the Sandpit panel may replay sessions/);
    const view = await replayed(sessionId);
    expect(view.state).toBe('done');
    // The uploaded file was put there by a call the audit log does not keep: the replay shows the difference honestly.
    expect(view.runs[0]).toMatchObject({ outcome: 'differs' });
    expect(view.runs[0]!.diffs.map((d) => d.part)).toEqual(['status', 'stdout', 'error']);
    expect(view.runs[1]).toMatchObject({ outcome: 'skipped', note: expect.stringMatching(/never ran \(failed/) as unknown });
  });
});
