import { describe, expect, it, vi } from 'vitest';
import type { SandpitClient } from '../../../../shared/api/client';
import type { Approval } from '../../../../shared/domain/approval';
import { clock, secondsLeft } from './approval-words';
import { createApprovalsStore } from './approvals-store';

function approval(id: string, createdAt: string): Approval {
  return {
    id,
    kind: 'execute',
    client: 'claude',
    transport: 'mcp-http',
    sessionId: 's1',
    code: 'print(1)',
    codeTruncated: false,
    detail: 'Run Python code in session s1',
    createdAt,
    expiresAt: '2026-01-01T00:02:00Z',
  };
}

describe('approvals store', () => {
  it('shows requests at once, oldest first, and removes them when answered or resolved', async () => {
    const call = vi.fn(() => Promise.resolve({ ok: true }));
    const store = createApprovalsStore({
      transport: 'ipc',
      call,
      subscribe: () => () => undefined,
    } as unknown as SandpitClient);
    store.getState().applyEvent({ name: 'approval.requested', payload: approval('b', '2026-01-01T00:00:02Z') });
    store.getState().applyEvent({ name: 'approval.requested', payload: approval('a', '2026-01-01T00:00:01Z') });
    expect(store.getState().pending.map((a) => a.id)).toEqual(['a', 'b']);
    await store.getState().respond('a', 'approve');
    expect(call).toHaveBeenCalledWith('approvals.respond', { id: 'a', decision: 'approve' });
    expect(store.getState().pending.map((a) => a.id)).toEqual(['b']);
    store.getState().applyEvent({ name: 'approval.resolved', payload: { id: 'b', decision: 'expired' } });
    expect(store.getState().pending).toEqual([]);
    expect(store.getState().ended).toEqual([{ id: 'b', outcome: 'expired', client: 'claude' }]);
  });

  it('counts down to the expiry', () => {
    expect(secondsLeft('2026-01-01T00:02:00Z', Date.parse('2026-01-01T00:00:45.2Z'))).toBe(75);
    expect(secondsLeft('2026-01-01T00:02:00Z', Date.parse('2026-01-01T00:03:00Z'))).toBe(0);
    expect(clock(75)).toBe('1:15');
  });
});
