import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CONSOLE_APP_URI, MCP_APP_MIME, MCP_APPS_EXTENSION, rendersApps } from './console-app';
import { registerResources } from './resources';
import type { ToolKit } from './tool-kit';
import { executeCode } from './tools/execute-code';
import { getRun } from './tools/get-run';

describe('console in the chat (MCP App)', () => {
  it('is listed and read as an MCP App built on the ext-apps App class, and the run tools and get_run link it', async () => {
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
    const page = read.contents[0] as { mimeType: string; text: string; _meta?: unknown };
    expect(page.mimeType).toBe(MCP_APP_MIME);
    expect(page._meta).toEqual({ ui: { prefersBorder: true } });
    expect(page.text).toContain('new App({ name: \'Sandpit console\'');
    expect(page.text).toContain('new PostMessageTransport(window.parent, window.parent)');
    // One module script, well-formed (nothing imported or exported is left in it).
    const script = /<script type="module">([\s\S]*)<\/script>/.exec(page.text)?.[1] ?? '';
    expect(() => new Script(script)).not.toThrow();
    // Self-contained: nothing is loaded from anywhere.
    expect(page.text).not.toMatch(/<script[^>]*\bsrc=|<link\b|\bsrc="http|href="http|@import/);
    const { tools } = await client.listTools();
    const linked = { ui: { resourceUri: 'ui://sandpit/console' }, 'ui/resourceUri': 'ui://sandpit/console' };
    expect(tools.find((t) => t.name === 'get_run')?._meta).toEqual(linked);
    expect(tools.find((t) => t.name === 'execute_code')?._meta).toEqual(linked);
    await client.close();
  });

  it('uses the names of the MCP Apps spec as the package declares them', () => {
    expect(MCP_APP_MIME).toBe(RESOURCE_MIME_TYPE);
    expect(MCP_APPS_EXTENSION).toBe(EXTENSION_ID);
    expect(RESOURCE_URI_META_KEY).toBe('ui/resourceUri');
  });

  it('knows a client renders apps only when it declares the extension (for the app\'s mime type)', () => {
    expect(rendersApps(undefined)).toBe(false);
    expect(rendersApps({})).toBe(false);
    expect(rendersApps({ extensions: { 'io.modelcontextprotocol/ui': {} } })).toBe(true);
    expect(rendersApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } })).toBe(true);
    expect(rendersApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/uri-list'] } } })).toBe(false);
  });
});
