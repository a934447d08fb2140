/** A real SDK client linked in-process to a Sandpit MCP server that calls as one assistant (no transport between). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../core/mcp/create-mcp-server';
import type { TestSandpit } from './sandpit';

export interface InProcessClient {
  client: Client;
  close: () => Promise<void>;
}

/** Connects a client named `name`, calling as `principal` over what the server takes for stdio. */
export async function connectInProcess(sp: TestSandpit, name: string, principal = `mcp:${name}`): Promise<InProcessClient> {
  const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: name, principal }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}
