/**
 * The floor's reference: an MCP server over stdio made with the same SDK, whose one tool does nothing
 * (answers `execute_code` with "2" at once). What any stdio MCP server costs before it does any work.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'trivial', version: '1.0.0' });
server.registerTool(
  'execute_code',
  { description: 'Answers 2.', inputSchema: { code: z.string(), language: z.string().optional() } },
  () => ({ content: [{ type: 'text', text: '2' }], structuredContent: { result: '2' } }),
);
void server.connect(new StdioServerTransport());
