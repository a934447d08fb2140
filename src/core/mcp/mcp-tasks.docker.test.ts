import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('MCP Tasks (2025-11-25) backed by background runs, with the SDK client', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  const clients: Client[] = [];

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  /** An SDK client over Streamable HTTP, or over stdio through `sandpit mcp` bridging to the same Sandpit. */
  async function connect(how: 'http' | 'stdio', name: string): Promise<Client> {
    let transport: Transport;
    if (how === 'http') {
      transport = new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });
    } else {
      const env: Record<string, string> = { SANDPIT_HOME: sp.config.home };
      for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR']) if (process.env[key]) env[key] = process.env[key];
      transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), 'mcp'], cwd: ROOT, env, stderr: 'pipe' });
    }
    const client = new Client({ name, version: '1.0.0' }, { capabilities: { tasks: { list: {}, cancel: {} } } });
    await client.connect(transport, { timeout: 60_000 });
    clients.push(client);
    return client;
  }

  for (const how of ['http', 'stdio'] as const) {
    it(`over ${how}: the run tools say they take tasks; a task runs, notifies its status and gives the foreground result; tasks/list and tasks/cancel work`, async () => {
      const client = await connect(how, `tasks-${how}`);
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      for (const name of ['execute_code', 'run_command', 'run_file']) expect(tools.find((t) => t.name === name)?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((t) => t.name === 'list_sessions')?.execution?.taskSupport ?? 'forbidden').toBe('forbidden');

      const statuses: Task[] = [];
      client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
        statuses.push(n.params);
      });

      // End to end through the SDK's own task stream.
      const seen: string[] = [];
      let result: CallToolResult | undefined;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'execute_code', arguments: { code: 'import time\nprint("in a task", flush=True)\ntime.sleep(2)\n6 * 7' } },
        CallToolResultSchema,
        { task: { ttl: 120_000 }, timeout: 90_000 },
      )) {
        seen.push(message.type);
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      // The same result as the foreground call.
      expect(result?.structuredContent).toMatchObject({ status: 'ok', stdout: 'in a task\n', result: '42' });
      const text = result?.content[0];
      expect(text?.type === 'text' ? text.text : '').toMatch(/^ok in \d/);
      await pollUntil(() => (statuses.some((s) => s.status === 'completed') ? true : undefined), 10_000, 'the completed status notification');
      expect(statuses.find((s) => s.status === 'working')?.statusMessage).toMatch(/^background run run-[0-9a-f]{16}/);

      // Made by hand: tools/call with task augmentation answers a task at once; tasks/list shows it; tasks/cancel cancels its run.
      const created = await client.request(
        { method: 'tools/call', params: { name: 'run_command', arguments: { command: 'sleep 30; echo never' }, task: { ttl: 120_000 } } },
        CreateTaskResultSchema,
        { timeout: 30_000 },
      );
      const taskId = created.task.taskId;
      expect(created.task.status).toBe('working');
      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.map((t) => t.taskId)).toContain(taskId);
      const runId = /background run (run-[0-9a-f]{16})/.exec(created.task.statusMessage ?? '')?.[1];
      expect(runId).toBeDefined();
      await pollUntil(async () => ((await client.callTool({ name: 'get_run', arguments: { run_id: runId } })).structuredContent as { state: string }).state === 'running' ? true : undefined, 30_000, 'the command to start');
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled.status).toBe('cancelled');
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
      const end = await pollUntil(
        async () => {
          const r = (await client.callTool({ name: 'get_run', arguments: { run_id: runId, wait_seconds: 10 } }, undefined, { timeout: 30_000 })).structuredContent as { state: string; status?: string };
          return r.state === 'done' ? r : undefined;
        },
        30_000,
        'the cancelled command to end',
      );
      expect(end.status).toBe('interrupted');

      // Without task augmentation the same tool answers as it always did (no task made).
      const plain = (await client.callTool({ name: 'execute_code', arguments: { code: '1 + 1' } })) as CallToolResult;
      expect(plain.structuredContent).toMatchObject({ status: 'ok', result: '2' });
      expect((await client.experimental.tasks.listTasks()).tasks).toHaveLength(2);
    }, 180_000);
  }

  it('a client that declares no task support sees the tools work exactly as before', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });
    const client = new Client({ name: 'no-tasks', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const progress: string[] = [];
    const out = (await client.callTool({ name: 'execute_code', arguments: { code: 'import time\nprint("step", flush=True)\ntime.sleep(1.5)\n"x"' } }, undefined, {
      onprogress: (p) => {
        if (p.message) progress.push(p.message);
      },
    })) as CallToolResult;
    expect(out.structuredContent).toMatchObject({ status: 'ok', stdout: 'step\n', result: "'x'" });
    expect(progress).toContain('step');
  }, 60_000);
});
