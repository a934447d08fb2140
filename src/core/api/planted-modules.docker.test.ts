import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApprovalPolicy } from '../../shared/domain/approval';
import type { AuditSummary } from '../../shared/domain/audit';
import { testDocker } from '../../test-support/docker';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpServer } from '../mcp/create-mcp-server';
import { call } from './dispatcher';
import type { CallContext } from './api-types';

const PANEL: CallContext = { transport: 'ipc' };
const CLIENT = 'planted-modules-test';
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: CLIENT, principal: 'planted-principal' };
const MARKER = 'PLANTED-RAN-';

/** A module that, whenever anything imports (or runs) it, leaves a file named after itself in /workspace. */
const marker = (name: string): string => `open('/workspace/${MARKER}${name}', 'w').write('ran')\n`;

/**
 * What an assistant plants with write_file (no run, never asked): modules named like the standard library's,
 * the hooks Python runs at start-up (sitecustomize, usercustomize, a .pth line in the user site, which is
 * under HOME=/workspace) for the Python versions the images may carry.
 */
const PLANTED_PYTHON: Array<[string, string]> = [
  ...['json', 'importlib', 'platform', 'sitecustomize', 'usercustomize', 'zipfile', 'csv', 'pathlib', 'base64', 'tempfile', 'textwrap', 'inspect', 'asyncio', 'shutil', 'subprocess', 'typing', 'contextlib', 'functools', 'tokenize', 'warnings'].map(
    (name): [string, string] => [`${name}.py`, marker(name)],
  ),
  ['email/__init__.py', marker('email')],
  // Named like nothing else: only what imports it on purpose runs it (the markers' own check).
  ['planted_probe.py', marker('planted_probe')],
  ...['3.9', '3.10', '3.11', '3.12', '3.13', '3.14'].flatMap((v): Array<[string, string]> => [
    [`.local/lib/python${v}/site-packages/usercustomize.py`, marker(`user-site-usercustomize-${v}`)],
    [`.local/lib/python${v}/site-packages/sitecustomize.py`, marker(`user-site-sitecustomize-${v}`)],
    [`.local/lib/python${v}/site-packages/planted.pth`, `import os; open('/workspace/${MARKER}pth-${v}', 'w').write('ran')\n`],
  ]),
];

/** The markers the JavaScript plants write: named after the folder the file is in. */
const PLANTED_JS_NAMES = ['planted-pkg', 'fs', 'path', '.node_modules', '.node_libraries'].map((dir) => `${MARKER}${dir}`);
const MARKER_NAME = new RegExp(`${MARKER}[A-Za-z0-9_.-]*[A-Za-z0-9_]`, 'g');

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/**
 * The attack of issue 20 as it was found, over MCP with the SDK's client against real sandboxes: with "ask before
 * every run" on and every request denied, an assistant writes modules into /workspace with write_file and then
 * uses every other way into the sandbox — check_packages, install_packages, execute_code, a restart (Sandpit's
 * agent starts again), file calls, a snapshot. Nothing planted ever runs (no marker appears), and the audit log
 * says what was asked and refused, under runc and under gVisor. With the person's yes (policy "free"), Sandpit's own helpers still never
 * import from the workspace, while the same markers do appear when the user's own code imports them.
 */
describe.each(['standard', 'strong'] as const)('modules planted in the workspace never run through Sandpit (%s isolation)', (isolation) => {
  let sp: TestSandpit;
  let index: PackageIndex;
  let client: Client;
  let closeServer: () => Promise<void>;
  let denyAll = false;
  const offs: Array<() => void> = [];

  const tool = (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
  const setPolicy = async (policy: ApprovalPolicy): Promise<void> => {
    await call(sp.api, 'settings.update', { patch: { approvals: { perClient: { [CLIENT]: policy }, timeoutSeconds: 60 } } }, PANEL);
  };
  /**
   * The markers that exist in /workspace, looked up inside the sandbox by the engine (not through the agent), by
   * name: every name a planted file could write (gVisor's exec cannot list the workspace disk, but can stat it).
   */
  const markers = async (sessionId: string): Promise<string[]> => {
    const names = [...new Set([...PLANTED_PYTHON.map(([, content]) => content), ...PLANTED_JS_NAMES].flatMap((text) => [...text.matchAll(MARKER_NAME)].map((m) => m[0])))];
    const script = 'for f; do [ -e "/workspace/$f" ] && echo "$f"; done; exit 0';
    const r = await sp.sessions.session(sessionId).runtime.sandbox.exec(['sh', '-c', script, 'sh', ...names], { timeoutMs: 30_000, workingDir: '/' });
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout.split('\n').filter((name) => name !== '').sort();
  };
  const rowsOf = async (sessionId: string): Promise<Array<Pick<AuditSummary, 'method' | 'status' | 'code'>>> => {
    const { rows } = await call(sp.api, 'audit.list', { filters: { sessionId }, limit: 500 }, PANEL);
    return rows.reverse().map((r) => ({ method: r.method, status: r.status, code: r.code }));
  };
  const plant = async (sessionId: string, files: Array<[string, string]>): Promise<void> => {
    for (const [path, content] of files) {
      const wrote = await tool('write_file', { path, content, session_id: sessionId });
      expect(wrote.isError, textOf(wrote)).toBeFalsy();
    }
  };
  const newSession = async (language: 'python' | 'javascript'): Promise<string> => {
    const created = await tool('create_session', { language });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(sp.sessions.list().find((s) => s.id === (created.structuredContent as { session_id: string }).session_id)?.isolation).toBe(isolation);
    return (created.structuredContent as { session_id: string }).session_id;
  };

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    // strong: gVisor (runsc), as the engine here has it.
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network, defaultIsolation: isolation });
    const mcp = createMcpServer({ sandpit: sp, context: () => ASSISTANT });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    client = new Client({ name: CLIENT, version: '1.0.0' });
    await client.connect(clientSide);
    closeServer = () => mcp.close();
    // The person answers no to everything while denyAll is on.
    offs.push(
      sp.bus.on('approval.requested', (a) => {
        if (denyAll) void call(sp.api, 'approvals.respond', { id: a.id, decision: 'deny' }, PANEL);
      }),
    );
  });
  afterAll(async () => {
    for (const off of offs) off();
    await client?.close();
    await closeServer?.();
    await sp?.cleanup();
    await index?.stop();
  });

  let python: string;

  it('python, ask-every and every request denied: check, install, run, restart, files and a snapshot run nothing planted; the audit log says so', async () => {
    await setPolicy('free');
    python = await newSession('python');
    await setPolicy('ask-every');
    denyAll = true;
    await plant(python, PLANTED_PYTHON);

    const check = await tool('check_packages', { packages: ['json', 'sandpit_demo_a'], session_id: python });
    expect(check.isError).toBe(true);
    expect(textOf(check)).toMatch(/^DENIED/);
    const install = await tool('install_packages', { packages: ['sandpit_demo_a'], session_id: python });
    expect(install.isError).toBe(true);
    const run = await tool('execute_code', { code: 'import json', session_id: python });
    expect(run.isError).toBe(true);
    const runFile = await tool('run_file', { path: 'json.py', session_id: python });
    expect(runFile.isError).toBe(true);

    // What is not a run is not asked: and none of it loads a planted module (the agent starts again, answers
    // file requests, walks the workspace for a snapshot).
    await call(sp.api, 'sessions.restart', { sessionId: python }, ASSISTANT);
    expect(textOf(await tool('read_file', { path: 'json.py', session_id: python }))).toContain(MARKER);
    expect((await tool('list_files', { path: '.', session_id: python })).isError).toBeFalsy();
    const snapshot = await tool('snapshot_session', { session_id: python, name: 'planted' });
    expect(snapshot.isError, textOf(snapshot)).toBeFalsy();

    expect(await markers(python)).toEqual([]);
    expect(await rowsOf(python)).toEqual([
      { method: 'packages.check', status: 'denied', code: 'json\nsandpit_demo_a' },
      { method: 'packages.install', status: 'denied', code: 'sandpit_demo_a' },
      { method: 'sessions.execute', status: 'denied', code: 'import json' },
      { method: 'sessions.runFile', status: 'denied', code: 'json.py' },
    ]);
    denyAll = false;
  }, 240_000);

  it("python, with the person's yes: the check and the install run Sandpit's helpers, which import nothing from the workspace", async () => {
    await setPolicy('free');
    const before = await tool('check_packages', { packages: ['sandpit_demo_a'], session_id: python });
    expect(before.isError, textOf(before)).toBeFalsy();
    expect(before.structuredContent).toEqual({ packages: [{ name: 'sandpit_demo_a', installed: false }] });

    const install = await tool('install_packages', { packages: ['sandpit_demo_a'], session_id: python });
    expect(install.isError, textOf(install)).toBeFalsy();
    expect(install.structuredContent).toEqual({ results: [{ package: 'sandpit_demo_a', ok: true, version: '1.0.0' }] });

    const after = await tool('check_packages', { packages: ['sandpit_demo_a', 'json'], session_id: python });
    expect(after.structuredContent).toEqual({
      packages: [
        { name: 'sandpit_demo_a', installed: true, version: '1.0.0' },
        { name: 'json', installed: false },
      ],
    });
    await call(sp.api, 'sessions.restart', { sessionId: python }, ASSISTANT);
    expect(await markers(python)).toEqual([]);
    const rows = (await rowsOf(python)).slice(4);
    expect(rows).toEqual([
      { method: 'packages.check', status: 'ok', code: 'sandpit_demo_a' },
      { method: 'packages.install', status: 'ok', code: 'sandpit_demo_a' },
      { method: 'packages.check', status: 'ok', code: 'sandpit_demo_a\njson' },
    ]);

    // The markers are real: the user's own code, importing from the working directory as Python does, runs a
    // planted module (a run the person allowed, with its own audit row).
    const own = await tool('execute_code', { code: 'import planted_probe\nplanted_probe.__file__', session_id: python });
    expect(own.isError, textOf(own)).toBeFalsy();
    expect(textOf(own)).toContain('/workspace/planted_probe.py');
    expect(await markers(python)).toEqual([`${MARKER}planted_probe`]);
  }, 240_000);

  it('javascript: a package planted in /workspace/node_modules is reported by its package.json, and its code never runs', async () => {
    await setPolicy('free');
    const js = await newSession('javascript');
    const jsMarker = `require('fs').writeFileSync('/workspace/${MARKER}' + require('path').basename(__dirname), 'ran');\n`;
    await plant(js, [
      ['node_modules/planted-pkg/package.json', JSON.stringify({ name: 'planted-pkg', version: '6.6.6', main: 'index.js' })],
      ['node_modules/planted-pkg/index.js', jsMarker],
      ['node_modules/fs/package.json', JSON.stringify({ name: 'fs', version: '6.6.6', main: 'index.js' })],
      ['node_modules/fs/index.js', jsMarker],
      ['node_modules/path/index.js', jsMarker],
      ['.node_modules/fs.js', jsMarker],
      ['.node_libraries/path.js', jsMarker],
    ]);
    const check = await tool('check_packages', { packages: ['planted-pkg', 'left-pad'], session_id: js });
    expect(check.isError, textOf(check)).toBeFalsy();
    expect(check.structuredContent).toEqual({
      packages: [
        { name: 'planted-pkg', installed: true, version: '6.6.6' },
        { name: 'left-pad', installed: false },
      ],
    });
    await call(sp.api, 'sessions.restart', { sessionId: js }, ASSISTANT);
    expect((await tool('list_files', { path: '.', session_id: js })).isError).toBeFalsy();
    expect(await markers(js)).toEqual([]);
    expect((await rowsOf(js)).map((r) => `${r.method} ${r.status}`)).toEqual(['packages.check ok']);

    const own = await tool('execute_code', { code: "require('planted-pkg'); 'loaded'", session_id: js });
    expect(own.isError, textOf(own)).toBeFalsy();
    expect(await markers(js)).toEqual([`${MARKER}planted-pkg`]);
  }, 240_000);
});
