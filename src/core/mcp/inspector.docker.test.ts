import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { LABEL } from '../docker/labels';
import { pollUntil } from '../util/with-timeout';
import { tempHome, testDocker } from '../../test-support/docker';
import type { TempHome } from '../../test-support/docker';
import { cliEnv, runCli } from '../../test-support/run-cli';
import type { CliResult } from '../../test-support/run-cli';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';
import { TOOLS } from './tools/index';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const INSPECTOR_BIN = join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');
const SANDPIT_BIN = join(ROOT, 'bin', 'sandpit.mjs');
/**
 * inspector-cli 1.0.3 looks for its own package.json as `../package.json` relative to the working directory
 * (and then imports it relative to its own file), so it only starts from a directory one below a package.json:
 * its own build folder is the one where both agree.
 */
const INSPECTOR_CWD = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
const RUN_TIMEOUT_MS = 120_000;

interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: { type?: string; properties?: Record<string, unknown> };
  annotations?: Record<string, unknown>;
}

interface CalledTool {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: { status?: string; stdout?: string; session_id?: string };
  isError?: boolean;
}

/** Runs `mcp-inspector-cli --cli …` and returns its stdout parsed as JSON (the CLI prints nothing else there). */
async function inspect(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<{ run: CliResult; json: unknown }> {
  const run = await runCli(process.execPath, [INSPECTOR_BIN, '--cli', ...args], {
    cwd: INSPECTOR_CWD,
    env: cliEnv(extraEnv),
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const log = `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
  expect(run.timedOut, log).toBe(false);
  expect(run.code, log).toBe(0);
  let json: unknown;
  expect(() => {
    json = JSON.parse(run.stdout);
  }, log).not.toThrow();
  return { run, json };
}

function expectAllTools(listed: unknown): void {
  const { tools } = listed as { tools: ListedTool[] };
  expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  const execute = tools.find((t) => t.name === 'execute_code');
  expect(execute?.inputSchema?.type).toBe('object');
  expect(Object.keys(execute?.inputSchema?.properties ?? {})).toContain('code');
  expect(execute?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
}

/** The answer of execute_code for `print(6*7)`; returns its session id. */
function expectFortyTwo(called: unknown): string {
  const result = called as CalledTool;
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(result.structuredContent).toMatchObject({ status: 'ok', stdout: '42\n' });
  expect(result.content?.some((c) => c.type === 'text' && c.text?.includes('42'))).toBe(true);
  const sessionId = result.structuredContent?.session_id;
  expect(sessionId).toMatch(/^ses-/);
  return sessionId ?? '';
}

const CALL_EXECUTE = ['--method', 'tools/call', '--tool-name', 'execute_code', '--tool-arg', 'code=print(6*7)'];

describe('the MCP inspector CLI over stdio (sandpit mcp hosting the core itself)', () => {
  let home: TempHome;
  const docker = testDocker();
  const sessions: string[] = [];

  beforeAll(() => {
    home = tempHome();
  });
  afterAll(async () => {
    // Normally gone already (asserted below); never leave a container behind.
    for (const session of sessions)
      for (const c of await docker.listContainers({ [LABEL.session]: session }).catch(() => []))
        await docker.removeContainer(c.id).catch(() => undefined);
    await home?.cleanup();
  });

  const env = (): Record<string, string> => ({ SANDPIT_HOME: home.dir, SANDPIT_LOG: 'warn' });

  it('lists the tools', async () => {
    const { json } = await inspect(['node', SANDPIT_BIN, 'mcp', '--method', 'tools/list'], env());
    expectAllTools(json);
  });

  it('runs print(6*7) with execute_code, and the sandbox is gone once the inspector has disconnected', async () => {
    const { json } = await inspect(['node', SANDPIT_BIN, 'mcp', ...CALL_EXECUTE], env());
    const sessionId = expectFortyTwo(json);
    sessions.push(sessionId);
    // Nothing was serving this data folder, so `sandpit mcp` hosted the core itself (no bridge).
    expect(existsSync(join(home.dir, 'instance.json'))).toBe(false);
    await pollUntil(
      async () => ((await docker.listContainers({ [LABEL.session]: sessionId })).length === 0 ? true : undefined),
      30_000,
      `the container of session ${sessionId} to be removed`,
      250,
    );
  });
});

describe('the MCP inspector CLI over Streamable HTTP', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  /** In CLI mode inspector 1.0.3 forwards the URL only as the target argument (`--server-url` is dropped). */
  const target = (): string[] => [
    `${served.http.url}/mcp`,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${served.token}`,
  ];

  it('lists the tools', async () => {
    const { json } = await inspect([...target(), '--method', 'tools/list']);
    expectAllTools(json);
  });

  it('runs print(6*7) with execute_code', async () => {
    const { json } = await inspect([...target(), ...CALL_EXECUTE]);
    const sessionId = expectFortyTwo(json);
    expect(sp.sessions.session(sessionId).info().client).toBe('inspector-cli');
  });

  it('is refused without the bearer token', async () => {
    const run = await runCli(
      process.execPath,
      [INSPECTOR_BIN, '--cli', `${served.http.url}/mcp`, '--transport', 'http', '--method', 'tools/list'],
      { cwd: INSPECTOR_CWD, env: cliEnv(), timeoutMs: RUN_TIMEOUT_MS },
    );
    expect(run.timedOut).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/401|Unauthorized|access token/i);
  });
});
