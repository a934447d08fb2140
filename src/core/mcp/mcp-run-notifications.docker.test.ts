// What a long run tells its MCP client as it goes (issue 23): progress notifications carry the newest output
// line, and `notifications/resources/list_changed` comes when a run makes files. Real SDK client over
// Streamable HTTP, real core and engine.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

describe('notifications of a run, over Streamable HTTP', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  let client: Client;
  let listChanged = 0;

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
    client = new Client({ name: 'run-notifications-test', version: '1.0.0' });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } }));
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('progress carries the newest output line as the run goes', async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool(
      { name: 'execute_code', arguments: { code: 'import time\nprint("step one", flush=True)\ntime.sleep(2.5)\nprint("step two", flush=True)\ntime.sleep(2.5)\n"done"' } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 60_000 },
    )) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 'ok', result: "'done'" });
    const messages = seen.map((p) => p.message);
    expect(messages).toContain('step one');
    expect(messages).toContain('step two');
    expect(messages.indexOf('step one')).toBeLessThan(messages.indexOf('step two'));
  });

  it('a command\'s progress carries its newest output line too', async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool(
      { name: 'run_command', arguments: { command: 'echo "first line"; sleep 2.5; echo "second line"; sleep 2.5' } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 60_000 },
    )) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ exit_code: 0, stdout: 'first line\nsecond line\n' });
    const messages = seen.map((p) => p.message);
    expect(messages).toContain('first line');
    expect(messages).toContain('second line');
    expect(messages.indexOf('first line')).toBeLessThan(messages.indexOf('second line'));
  });

  it('a run that makes a file sends resources/list_changed, and the list then shows the file; a run that makes none does not', async () => {
    const before = listChanged;
    await client.callTool({ name: 'execute_code', arguments: { code: '1 + 1' } }, undefined, { timeout: 60_000 });
    // Nothing new: no notification (give one that would come a moment to arrive with the next call's answer).
    await client.callTool({ name: 'list_sessions', arguments: {} });
    expect(listChanged).toBe(before);

    const made = (await client.callTool(
      { name: 'execute_code', arguments: { code: 'open("/workspace/report.csv", "w").write("a,b\\n1,2\\n")' } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(made.isError ?? false).toBe(false);
    await pollUntil(() => (listChanged > before ? true : undefined), 10_000, 'notifications/resources/list_changed');
    const { resources } = await client.listResources();
    expect(resources.some((r) => r.name === 'report.csv' || r.uri.includes('report.csv'))).toBe(true);
  });
});
