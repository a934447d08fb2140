/**
 * MCP round trip of `1+1`: tools/call execute_code (a) over stdio — an SDK client spawning
 * `node bin/sandpit.mjs mcp`, which hosts its own core (fresh SANDPIT_HOME, nothing to bridge to) — and
 * (b) over Streamable HTTP — an SDK client against serveHttp + the /mcp mount, with the bearer token — versus
 * (c) the engine API (`sessions.execute`) called directly in this process. Each works on its own default
 * session; the three are interleaved round-robin in one run so background noise hits them alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp } from '../src/core/http/serve-http';
import type { Sandpit } from '../src/core/app';
import { createMcpHttpMount } from '../src/core/mcp/http-mount';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, round, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';
import { newSession } from '../src/test-support/sessions';

const N = 300;
const WARMUP = 20;
const CODE = '1+1';
const CALL_TIMEOUT_MS = 60_000;
const SANDPIT_BIN = resolve(__dirname, '..', 'bin', 'sandpit.mjs');

type Key = 'engine' | 'stdio' | 'http';

export interface McpRoundTripSummary {
  engine: Distribution;
  stdio: Distribution;
  http: Distribution;
  /** Milliseconds MCP adds over the engine API at p50 and p99. */
  stdioAddedP50Ms: number;
  stdioAddedP99Ms: number;
  httpAddedP50Ms: number;
  httpAddedP99Ms: number;
  channel: string;
  goals: Goal[];
}

function expectTwo(what: string, value: string | undefined): void {
  if (value !== '2') throw new Error(`${what}: 1+1 gave ${JSON.stringify(value)}`);
}

async function callOnce(client: Client, what: string): Promise<number> {
  const t0 = now();
  const result = (await client.callTool({ name: 'execute_code', arguments: { code: CODE } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  })) as CallToolResult;
  const elapsed = now() - t0;
  if (result.isError) throw new Error(`${what}: execute_code failed: ${JSON.stringify(result.content)}`);
  expectTwo(what, (result.structuredContent as { result?: string } | undefined)?.result);
  return elapsed;
}

async function engineOnce(sandpit: Sandpit, sessionId: string): Promise<number> {
  const t0 = now();
  const result = await sandpit.sessions.session(sessionId).execute(CODE);
  const elapsed = now() - t0;
  expectTwo('engine', result.result);
  return elapsed;
}

/** The environment of the stdio child: a fresh data folder (so it hosts the core itself) and nothing secret. */
function childEnv(home: string): Record<string, string> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'warn' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'DOCKER_HOST', 'SANDPIT_CHANNEL'] as const) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return env;
}

export async function run(): Promise<McpRoundTripSummary> {
  const samples: Record<Key, number[]> = { engine: [], stdio: [], http: [] };
  let channel = '';
  const stdioHome = await mkdtemp(join(tmpdir(), 'sandpit-bench-stdio-'));
  try {
    await withCore({}, async (sandpit) => {
      channel = sandpit.sessions.channelKind;
      const mount = createMcpHttpMount(sandpit);
      const served = await serveHttp(sandpit, 0, [mount.route]);
      const httpClient = new Client({ name: 'bench-http', version: '1.0.0' });
      const stdioClient = new Client({ name: 'bench-stdio', version: '1.0.0' });
      let stderrTail = '';
      try {
        progress('mcp-round-trip: spawning sandpit mcp (stdio, hosting its own core) and connecting over HTTP');
        const stdioTransport = new StdioClientTransport({
          command: process.execPath,
          args: [SANDPIT_BIN, 'mcp'],
          env: childEnv(stdioHome),
          stderr: 'pipe',
        });
        stdioTransport.stderr?.on('data', (chunk: Buffer) => {
          stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4_000);
        });
        await stdioClient.connect(stdioTransport, { timeout: CALL_TIMEOUT_MS }).catch((error: unknown) => {
          throw new Error(`sandpit mcp did not start: ${String(error)}\n${stderrTail}`);
        });
        await httpClient.connect(
          new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${served.token}` } },
          }),
        );
        const engineSession = await newSession(sandpit, {});

        const variants: Array<{ key: Key; once: () => Promise<number> }> = [
          { key: 'engine', once: () => engineOnce(sandpit, engineSession.id) },
          { key: 'stdio', once: () => callOnce(stdioClient, 'stdio') },
          { key: 'http', once: () => callOnce(httpClient, 'http') },
        ];
        progress(`mcp-round-trip: ${WARMUP} warm-up + ${N} runs each of engine API / MCP stdio / MCP HTTP, interleaved`);
        for (let i = 0; i < WARMUP + N; i++) {
          for (let k = 0; k < variants.length; k++) {
            const v = variants[(i + k) % variants.length];
            if (!v) continue;
            const elapsed = await v.once();
            if (i >= WARMUP) samples[v.key].push(elapsed);
          }
          if ((i + 1) % 100 === 0) progress(`mcp-round-trip: ${i + 1}/${WARMUP + N}`);
        }
      } finally {
        await stdioClient.close().catch(() => undefined);
        await httpClient.close().catch(() => undefined);
        await served.close();
        await mount.close();
      }
    });
  } finally {
    await rm(stdioHome, { recursive: true, force: true });
  }

  const engine = summarize(samples.engine);
  const stdio = summarize(samples.stdio);
  const http = summarize(samples.http);
  const stdioAddedP50 = stdio.p50 - engine.p50;
  const stdioAddedP99 = stdio.p99 - engine.p99;
  const httpAddedP50 = http.p50 - engine.p50;
  const httpAddedP99 = http.p99 - engine.p99;

  process.stdout.write(
    `\n## MCP round trip of ${CODE} (N=${N} after ${WARMUP} warm-up, interleaved; each on its own default session; channel ${channel})\n`,
  );
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('(c) engine API sessions.execute', engine),
        latencyRow('(a) MCP tools/call over stdio', stdio),
        latencyRow('(b) MCP tools/call over HTTP', http),
      ],
    )}\n`,
  );
  process.stdout.write(
    `added over the engine API: stdio ${formatMs(stdioAddedP50)} at p50, ${formatMs(stdioAddedP99)} at p99; ` +
      `HTTP ${formatMs(httpAddedP50)} at p50, ${formatMs(httpAddedP99)} at p99\n`,
  );
  const goals = [
    goal('MCP stdio: added over the engine API (p50)', '≤ 1 ms', formatMs(stdioAddedP50), stdioAddedP50 <= 1),
    goal('MCP HTTP: added over the engine API (p50)', '≤ 3 ms', formatMs(httpAddedP50), httpAddedP50 <= 3),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);

  return {
    engine: roundDistribution(engine),
    stdio: roundDistribution(stdio),
    http: roundDistribution(http),
    stdioAddedP50Ms: round(stdioAddedP50),
    stdioAddedP99Ms: round(stdioAddedP99),
    httpAddedP50Ms: round(httpAddedP50),
    httpAddedP99Ms: round(httpAddedP99),
    channel,
    goals,
  };
}
