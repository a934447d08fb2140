import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { CONSOLE_APP_URI, MCP_APP_MIME } from './console-app';
import { registerResources } from './resources';
import type { ToolKit } from './tool-kit';
import { executeCode } from './tools/execute-code';
import { getRun } from './tools/get-run';

describe('console in the chat (MCP App)', () => {
  it('is listed and read as an MCP App, and get_run links it', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    // A kit with no sessions and no artifacts: the other resource templates list nothing.
    const kit = {
      call: (): Promise<unknown> => Promise.resolve({ artifacts: [], sessions: [] }),
      artifacts: { list: (): [] => [], get: (): undefined => undefined },
      context: (): object => ({}),
    } as unknown as ToolKit;
    registerResources(server, kit);
    getRun.register(server, kit);
    executeCode.register(server, kit);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'c', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === CONSOLE_APP_URI)?.mimeType).toBe('text/html;profile=mcp-app');
    const read = await client.readResource({ uri: CONSOLE_APP_URI });
    const page = read.contents[0] as { mimeType: string; text: string };
    expect(page.mimeType).toBe(MCP_APP_MIME);
    expect(page.text).toContain('ui/initialize');
    expect(page.text).not.toMatch(/src="http|href="http/);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'get_run')?._meta).toEqual({ ui: { resourceUri: 'ui://sandpit/console' } });
    expect(tools.find((t) => t.name === 'execute_code')?._meta).toEqual({ ui: { resourceUri: 'ui://sandpit/console' } });
    await client.close();
  });
});
