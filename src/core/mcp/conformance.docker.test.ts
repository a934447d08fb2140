import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { startAuthProxy } from '../../test-support/auth-proxy';
import type { AuthProxy } from '../../test-support/auth-proxy';
import { tempHome } from '../../test-support/docker';
import type { TempHome } from '../../test-support/docker';
import { rawRequest } from '../../test-support/http-client';
import { cliEnv, runCli } from '../../test-support/run-cli';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CONFORMANCE_BIN = join(ROOT, 'node_modules', '.bin', 'conformance');
const BASELINE = join(ROOT, 'src', 'core', 'mcp', 'conformance-baseline.yml');
const RUN_TIMEOUT_MS = 180_000;

/**
 * The scenarios of `--suite all` (conformance 0.1.16) that Sandpit passes. Together with the baseline they
 * are the whole suite, so a scenario that newly fails, or a run that runs nothing, fails this test.
 * tools-call-simple-text and tools-call-error pass without their fixture tools: the SDK answers an
 * unknown tool with an `isError` text result, which is all those two scenarios look at.
 */
const EXPECTED_PASSING = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'server-sse-multiple-streams',
  'resources-list',
  'dns-rebinding-protection',
].sort();

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface ScenarioResult {
  scenario: string;
  checks: Check[];
}

/** `server-<scenario>-<ISO time with : and . as ->`, as the CLI names each result folder. */
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

async function readResults(dir: string): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const scenario = entry.isDirectory() ? RESULT_DIR.exec(entry.name)?.[1] : undefined;
    if (scenario === undefined) continue;
    const checks = JSON.parse(await readFile(join(dir, entry.name, 'checks.json'), 'utf8')) as Check[];
    results.push({ scenario, checks });
  }
  return results;
}

/** The CLI's own rule: a scenario fails when any check is a FAILURE or a WARNING. */
function passed(result: ScenarioResult): boolean {
  return result.checks.length > 0 && result.checks.every((c) => c.status !== 'FAILURE' && c.status !== 'WARNING');
}

/** The scenario names under `server:` in the baseline (a list of `- name` lines; comments ignored). */
async function baselineScenarios(): Promise<string[]> {
  const text = await readFile(BASELINE, 'utf8');
  return text
    .split('\n')
    .map((line) => /^\s+-\s+([a-z0-9-]+)\s*(#.*)?$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
}

describe('the official MCP conformance suite against /mcp', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  let proxy: AuthProxy;
  let out: TempHome;

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
    proxy = await startAuthProxy({ targetPort: served.http.port, token: served.token });
    out = tempHome();
  });
  afterAll(async () => {
    await proxy?.close();
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
    await out?.cleanup();
  });

  it('passes every scenario that is not in the reviewed baseline', { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
    const run = await runCli(
      process.execPath,
      [
        CONFORMANCE_BIN,
        'server',
        '--url',
        `${proxy.url}/mcp`,
        '--suite',
        'all',
        '--expected-failures',
        BASELINE,
        '-o',
        out.dir,
      ],
      { cwd: ROOT, env: cliEnv(), timeoutMs: RUN_TIMEOUT_MS },
    );
    const log = `${run.stdout}\n${run.stderr}`;
    expect(run.timedOut, log).toBe(false);
    expect(run.code, log).toBe(0);
    expect(run.stdout).toContain('Baseline check passed');

    const results = await readResults(out.dir);
    const baseline = await baselineScenarios();
    const passing = results.filter(passed).map((r) => r.scenario).sort();
    const failing = results.filter((r) => !passed(r)).map((r) => r.scenario).sort();
    expect(passing).toEqual(EXPECTED_PASSING);
    expect(failing).toEqual(baseline);
    expect(results).toHaveLength(EXPECTED_PASSING.length + baseline.length);
    // Nothing rejected for want of a token: the proxy added it to every request.
    const unauthorized = results.flatMap((r) => r.checks).filter((c) => c.errorMessage?.includes('401'));
    expect(unauthorized).toEqual([]);
  });

  it('lets a foreign Host through the proxy to our own guard, which refuses it', async () => {
    const before = proxy.forwarded();
    const refused = await rawRequest({
      port: proxy.port,
      method: 'POST',
      path: '/mcp',
      headers: { host: 'evil.example.com', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(proxy.forwarded()).toBe(before + 1);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ ok: false, error: { code: 'DENIED' } });
    expect(refused.text).toContain(`127.0.0.1:${served.http.port}`);
  });
});
