import { describe, expect, it, vi } from 'vitest';
import type { AgentChannel } from '../sandbox/agent-channel';
import { AgentRequests } from './agent-requests';
import type { HostMessage } from '../sandbox/protocol';

function channel(): AgentChannel & { sent: HostMessage[] } {
  const sent: HostMessage[] = [];
  return { kind: 'attach', closed: false, sent, send: (m) => void sent.push(m), onMessage: () => undefined, onClose: () => undefined, close: () => undefined };
}

describe('AgentRequests', () => {
  it('routes replies to their request by id, ignoring replies nobody asked for', async () => {
    const requests = new AgentRequests();
    const ch = channel();
    const reading = requests.send(ch, (id) => [{ type: 'fs', id, op: 'usage' }], (reply) => (reply.type === 'fs-usage' ? reply.usedBytes : undefined), 1_000, 'usage');
    const id = ch.sent[0]!.id;
    requests.accept({ type: 'fs-usage', id: 'q-someone-else', usedBytes: 9, totalBytes: 9, freeBytes: 0, fileBytes: 9 });
    requests.accept({ type: 'fs-usage', id, usedBytes: 5, totalBytes: 10, freeBytes: 5, fileBytes: 4 });
    await expect(reading).resolves.toBe(5);
  });

  it('fails a request that is not answered in time, or whose channel closes, or that the collector refuses', async () => {
    vi.useFakeTimers();
    try {
      const requests = new AgentRequests();
      const slow = requests.send(channel(), (id) => [{ type: 'reap', id }], () => undefined, 500, 'stopping leftovers');
      const late = expect(slow).rejects.toMatchObject({ code: 'EXEC_TIMEOUT', message: expect.stringContaining('stopping leftovers') as unknown });
      await vi.advanceTimersByTimeAsync(600);
      await late;
      const ch = channel();
      const cut = requests.send(ch, (id) => [{ type: 'reap', id }], () => undefined, 10_000, 'x');
      requests.failAll('the container stopped');
      await expect(cut).rejects.toMatchObject({ code: 'CONTAINER_DIED' });
      const refused = requests.send(ch, (id) => [{ type: 'reap', id }], () => {
        throw new Error('not what was asked');
      }, 10_000, 'x');
      requests.accept({ type: 'reaped', id: ch.sent[1]!.id, killed: 1 });
      await expect(refused).rejects.toThrow('not what was asked');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses at once when there is no channel', async () => {
    await expect(new AgentRequests().send(undefined, (id) => [{ type: 'reap', id }], () => 1, 1_000, 'x')).rejects.toMatchObject({ code: 'CONTAINER_DIED' });
  });
});
