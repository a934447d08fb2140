import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../core/events/event-bus';
import { clientRegistryOn } from '../core/connect/client-registry';
import { createLogger } from '../core/log';
import { createMcpServer } from '../core/mcp/create-mcp-server';
import { PROTOCOL_VERSIONS } from '../core/mcp/server-identity';
import { earlyInitializeResult } from './early-initialize';

/** What the real server (every tool and resource registered) answers `message` with. */
async function serverAnswer(message: JSONRPCMessage): Promise<JSONRPCMessage> {
  const bus = new EventBus();
  const mcp = createMcpServer({
    sandpit: { api: {} as never, bus, log: createLogger({ app: 'test' }, 'error'), clients: clientRegistryOn(bus) },
    context: () => ({ transport: 'mcp-stdio', principal: 'test' }),
  });
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const reply = new Promise<JSONRPCMessage>((resolve) => {
    ours.onmessage = resolve;
  });
  await mcp.server.connect(theirs);
  await ours.start();
  await ours.send(message);
  const answer = await reply;
  await mcp.close();
  return answer;
}

const initialize = (protocolVersion: string, id: number | string = 1): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: { sampling: {} }, clientInfo: { name: 'probe', version: '1.0' } },
});

describe('the early initialize answer of sandpit mcp', () => {
  it('knows the protocol versions of the bundled SDK, newest first', () => {
    expect([...PROTOCOL_VERSIONS]).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it.each([...SUPPORTED_PROTOCOL_VERSIONS, '2099-01-01', '1.0'])('is exactly what the real server answers when the client asks for %s', async (version) => {
    const message = initialize(version, `id-${version}`);
    const early = earlyInitializeResult(message);
    expect(early).toBeDefined();
    expect(early).toEqual(await serverAnswer(message));
  });

  it('leaves every other message, and a malformed initialize, to the server', () => {
    expect(earlyInitializeResult({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).toBeUndefined();
    expect(earlyInitializeResult({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(earlyInitializeResult({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 7, capabilities: {}, clientInfo: { name: 'x', version: '1' } } })).toBeUndefined();
    expect(earlyInitializeResult({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } })).toBeUndefined();
    expect(earlyInitializeResult({ jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'x', version: '1' } } })).toBeUndefined();
  });

  it('lets a real SDK client connect through it', async () => {
    // The client sees the early answer as the server's: its version, capabilities and instructions.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      const answer = earlyInitializeResult(message);
      if (answer) void serverSide.send(answer);
    };
    await serverSide.start();
    const client = new Client({ name: 'probe', version: '1.0' });
    await client.connect(clientSide);
    expect(client.getServerVersion()).toMatchObject({ name: 'sandpit', title: 'Sandpit' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, logging: {} });
    expect(client.getInstructions()).toMatch(/execute_code/);
    await client.close();
  });
});
