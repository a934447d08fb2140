import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import { MAX_APPROVAL_CODE_CHARS } from '../../shared/domain/approval';
import { EventBus } from '../events/event-bus';
import { ApprovalQueue, CANCELLED_MESSAGE, DENIED_MESSAGE, deniedInChatMessage, SHUTDOWN_MESSAGE } from './approval-queue';
import type { ApprovalRequest, ChatDecision } from './approval-queue';

const request = (extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  kind: 'execute',
  client: 'claude-ai',
  transport: 'mcp-http',
  sessionId: 'ses-1',
  code: 'print(1)',
  detail: 'Run code in session ses-1',
  timeoutMs: 120_000,
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<SandpitError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SandpitError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('ApprovalQueue', () => {
  let bus: EventBus;
  let queue: ApprovalQueue;
  let events: Array<[EventName, EventPayload<EventName>]>;

  beforeEach(() => {
    bus = new EventBus();
    queue = new ApprovalQueue(bus);
    events = [];
    bus.onAny((name, payload) => events.push([name, payload]));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('announces a request with its code and resolves when the person approves', async () => {
    const waiting = queue.request(request());
    const [approval] = queue.list();
    expect(approval).toMatchObject({ kind: 'execute', client: 'claude-ai', transport: 'mcp-http', sessionId: 'ses-1', code: 'print(1)', codeTruncated: false });
    expect(Date.parse(approval!.expiresAt) - Date.parse(approval!.createdAt)).toBe(120_000);
    expect(events).toEqual([['approval.requested', approval]]);
    expect(queue.respond(approval!.id, 'approve')).toBe(true);
    await expect(waiting).resolves.toEqual({ answeredIn: 'panel', forSession: false });
    expect(events[1]).toEqual(['approval.resolved', { id: approval!.id, decision: 'approved' }]);
    expect(queue.list()).toEqual([]);
    expect(queue.respond(approval!.id, 'deny')).toBe(false);
  });

  it('rejects with DENIED and a plain message when the person denies', async () => {
    const waiting = queue.request(request());
    queue.respond(queue.list()[0]!.id, 'deny');
    const error = await rejection(waiting);
    expect(error.code).toBe('DENIED');
    expect(error.message).toBe(DENIED_MESSAGE);
    expect(error.details).toMatchObject({ decision: 'denied' });
    expect(events.at(-1)).toEqual(['approval.resolved', expect.objectContaining({ decision: 'denied' })]);
  });

  it('counts no answer within the timeout as denied', async () => {
    vi.useFakeTimers();
    const waiting = rejection(queue.request(request({ timeoutMs: 30_000 })));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(queue.list()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await waiting;
    expect(error.code).toBe('DENIED');
    expect(error.message).toBe('No one answered within 30 s, so the run was not allowed.');
    expect(queue.list()).toEqual([]);
    expect(events.at(-1)).toEqual(['approval.resolved', expect.objectContaining({ decision: 'expired' })]);
  });

  it('withdraws a request whose caller gave up, and refuses one given up already', async () => {
    const controller = new AbortController();
    const waiting = rejection(queue.request(request({ signal: controller.signal })));
    controller.abort();
    expect((await waiting).message).toBe(CANCELLED_MESSAGE);
    expect(events.at(-1)).toEqual(['approval.resolved', expect.objectContaining({ decision: 'cancelled' })]);
    expect((await rejection(queue.request(request({ signal: controller.signal })))).code).toBe('DENIED');
    expect(queue.list()).toEqual([]);
  });

  it('keeps requests apart and answers each once', async () => {
    const first = queue.request(request({ sessionId: 'ses-a' }));
    const second = rejection(queue.request(request({ sessionId: 'ses-b' })));
    const [a, b] = queue.list();
    expect(a!.id).not.toBe(b!.id);
    queue.respond(b!.id, 'deny');
    queue.respond(a!.id, 'approve');
    await expect(first).resolves.toEqual({ answeredIn: 'panel', forSession: false });
    expect((await second).code).toBe('DENIED');
  });

  it('caps the code it shows', () => {
    void queue.request(request({ code: 'x'.repeat(MAX_APPROVAL_CODE_CHARS + 10) })).catch(() => undefined);
    const [approval] = queue.list();
    expect(approval!.codeTruncated).toBe(true);
    expect(approval!.code!.length).toBeLessThan(MAX_APPROVAL_CODE_CHARS + 100);
    queue.dispose();
  });

  it('refuses everything still waiting when it is disposed', async () => {
    const waiting = rejection(queue.request(request()));
    queue.dispose();
    expect((await waiting).message).toBe(SHUTDOWN_MESSAGE);
    expect(queue.list()).toEqual([]);
  });

  describe('asked in the chat too', () => {
    it('the chat answering first decides: the panel prompt goes, the event says "chat"', async () => {
      let answer!: (d: ChatDecision | undefined) => void;
      let chatSignal: AbortSignal | undefined;
      const waiting = queue.request(request({ chat: (_a, signal) => ((chatSignal = signal), new Promise((r) => (answer = r))) }));
      const [approval] = queue.list();
      expect(approval!.askedInChat).toBe(true);
      answer('approve-session');
      await expect(waiting).resolves.toEqual({ answeredIn: 'chat', forSession: true });
      expect(queue.list()).toEqual([]);
      expect(events[1]).toEqual(['approval.resolved', { id: approval!.id, decision: 'approved', answeredIn: 'chat' }]);
      expect(chatSignal?.aborted).toBe(true);
      expect(queue.respond(approval!.id, 'deny')).toBe(false);
    });

    it('a denial in the chat refuses with words that say so', async () => {
      const error = await rejection(queue.request(request({ chat: () => Promise.resolve('deny') })));
      expect(error.message).toBe(deniedInChatMessage('claude-ai'));
      expect(error.details).toMatchObject({ decision: 'denied', answeredIn: 'chat' });
    });

    it('the panel answering first withdraws the chat question at once', async () => {
      let chatSignal: AbortSignal | undefined;
      const waiting = queue.request(request({ chat: (_a, signal) => ((chatSignal = signal), new Promise(() => undefined)) }));
      const [approval] = queue.list();
      expect(chatSignal?.aborted).toBe(false);
      queue.respond(approval!.id, 'approve');
      expect(chatSignal?.aborted).toBe(true);
      await expect(waiting).resolves.toEqual({ answeredIn: 'panel', forSession: false });
    });

    it('no answer in the chat (dismissed, failed) leaves the question to the panel', async () => {
      const waiting = queue.request(request({ chat: () => Promise.reject(new Error('client went away')) }));
      await new Promise((r) => setTimeout(r, 0));
      const [approval] = queue.list();
      expect(approval).toBeDefined();
      queue.respond(approval!.id, 'deny');
      expect((await rejection(waiting)).message).toBe(DENIED_MESSAGE);
    });

    it('remembers "approve for this session" per caller and session', () => {
      queue.grantSession('p1', 'ses-1');
      expect(queue.grantedForSession('p1', 'ses-1')).toBe(true);
      expect(queue.grantedForSession('p2', 'ses-1')).toBe(false);
      expect(queue.grantedForSession('p1', 'ses-2')).toBe(false);
    });

    it('lists what a session may run without asking (who, when) and takes it back for that assistant only', () => {
      queue.grantSession('p1', 'ses-1', 'claude-code');
      queue.grantSession('p2', 'ses-1', 'cursor');
      queue.grantSession('p1', 'ses-2', 'claude-code');
      expect(queue.sessionGrants('ses-1').map((g) => g.client)).toEqual(['claude-code', 'cursor']);
      expect(Number.isNaN(Date.parse(queue.sessionGrants('ses-1')[0]!.grantedAt))).toBe(false);
      expect(events.filter(([name]) => name === 'approval.grants')).toHaveLength(3);
      expect(queue.revokeSessionGrant('ses-1', 'claude-code')).toBe(1);
      expect(queue.grantedForSession('p1', 'ses-1')).toBe(false);
      // The other assistant in that session, and the same assistant in another session, keep theirs.
      expect(queue.grantedForSession('p2', 'ses-1')).toBe(true);
      expect(queue.grantedForSession('p1', 'ses-2')).toBe(true);
      expect(queue.sessionGrants('ses-1').map((g) => g.client)).toEqual(['cursor']);
      expect(events.at(-1)).toEqual(['approval.grants', { sessionId: 'ses-1' }]);
      expect(queue.revokeSessionGrant('ses-1', 'claude-code')).toBe(0);
    });
  });
});
