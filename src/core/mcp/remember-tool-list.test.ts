import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rememberToolList } from './remember-tool-list';

describe('tools/list remembered until the tools change', () => {
  it('answers again without converting the schemas again, and lists a tool added, disabled or removed afterwards', async () => {
    const server = new McpServer({ name: 'test', version: '1' });
    server.registerTool('first', { description: 'one', inputSchema: { code: z.string() } }, () => ({ content: [] }));
    // Count the SDK's own answers (each converts every schema).
    const handlers = (server.server as unknown as { _requestHandlers: Map<string, (request: unknown, extra: unknown) => Promise<unknown>> })._requestHandlers;
    const sdkList = handlers.get('tools/list')!;
    let converted = 0;
    handlers.set('tools/list', (request, extra) => {
      converted += 1;
      return sdkList(request, extra);
    });
    rememberToolList(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test-client', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).toEqual(['first']);
      const again = await client.listTools();
      expect(again.tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] });
      expect(converted).toBe(1);

      const second = server.registerTool('second', { description: 'two' }, () => ({ content: [] }));
      expect(await names()).toEqual(['first', 'second']);
      expect(converted).toBe(2);
      second.disable();
      expect(await names()).toEqual(['first']);
      second.enable();
      second.remove();
      expect(await names()).toEqual(['first']);
      expect(await names()).toEqual(['first']);
      expect(converted).toBe(4);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
