import { describe, expect, it } from 'vitest';
import type { ConnectedClient } from '../../shared/domain/connect';
import { ClientRegistry } from './client-registry';

describe('ClientRegistry', () => {
  it('lists connected clients oldest first and reports every change with the whole list', () => {
    const changes: ConnectedClient[][] = [];
    const registry = new ClientRegistry((clients) => changes.push(clients));
    const removeA = registry.add({ name: 'cursor', transport: 'mcp-http', mcpSessionId: 'a' });
    const removeB = registry.add({ name: 'claude-ai', transport: 'mcp-stdio' });
    expect(registry.list().map((c) => c.name)).toEqual(['cursor', 'claude-ai']);
    expect(registry.list()[0]).toMatchObject({ transport: 'mcp-http', mcpSessionId: 'a' });
    expect(Date.parse(registry.list()[0]!.connectedAt)).not.toBeNaN();
    removeA();
    removeA();
    expect(registry.list().map((c) => c.name)).toEqual(['claude-ai']);
    removeB();
    expect(changes.map((list) => list.map((c) => c.name))).toEqual([['cursor'], ['cursor', 'claude-ai'], ['claude-ai'], []]);
  });

  it('names the assistant a client is: from the tag Connect wrote, else from a known handshake name', () => {
    const registry = new ClientRegistry();
    registry.add({ name: 'cursor-vscode', transport: 'mcp-http' });
    registry.add({ name: 'some-tool', transport: 'mcp-stdio', assistant: 'zed' });
    registry.add({ name: 'unknown', transport: 'mcp-stdio' });
    expect(registry.list().map((c) => c.assistant)).toEqual(['cursor', 'zed', undefined]);
  });

  it('remembers every name that has connected, once each, after the client has gone', () => {
    const registry = new ClientRegistry();
    registry.add({ name: 'cursor-vscode', transport: 'mcp-http' })();
    registry.add({ name: 'claude-ai', transport: 'mcp-stdio' });
    registry.add({ name: 'cursor-vscode', transport: 'mcp-http' });
    expect(registry.list().map((c) => c.name)).toEqual(['claude-ai', 'cursor-vscode']);
    expect(registry.seen()).toEqual(['cursor-vscode', 'claude-ai']);
  });
});
