import { describe, expect, it } from 'vitest';
import type { ConnectedClient } from '../../../../shared/domain/connect';
import { clientsWords } from './connect-status';

const client = (name: string, connectedAt: string): ConnectedClient => ({ name, transport: 'mcp-http', connectedAt });

describe('clientsWords', () => {
  it('says when no assistant is connected', () => {
    expect(clientsWords([])).toBe('No assistant connected');
  });

  it('counts one app with several connections once', () => {
    expect(clientsWords([client('Claude Desktop', '2026-12-06T10:00:00.000Z'), client('Claude Desktop', '2026-12-06T10:05:00.000Z')])).toBe(
      '1 assistant connected (Claude Desktop)',
    );
  });

  it('names the most recently connected first, so one that just connected is named among many', () => {
    const clients = [
      client('old-a', '2026-12-06T09:00:00.000Z'),
      client('old-b', '2026-12-06T09:01:00.000Z'),
      client('old-c', '2026-12-06T09:02:00.000Z'),
      client('Cursor', '2026-12-06T10:00:00.000Z'),
      client('Claude Desktop', '2026-12-06T10:01:00.000Z'),
    ];
    expect(clientsWords(clients)).toBe('5 assistants connected (Claude Desktop, Cursor and 3 more)');
  });
});
