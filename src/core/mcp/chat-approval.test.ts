import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/domain/approval';
import { CHAT_CODE_CHARS, canAskInChat, chatQuestion } from './chat-approval';

const approval = (extra: Partial<Approval> = {}): Approval => ({
  id: 'apr-1',
  kind: 'execute',
  client: 'claude-code',
  transport: 'mcp-stdio',
  sessionId: 'ses-1',
  code: 'print(1)',
  codeTruncated: false,
  detail: 'Run code in the session "Python 1" (it has network access)',
  environment: 'Data science',
  network: 'open',
  createdAt: new Date(0).toISOString(),
  expiresAt: new Date(120_000).toISOString(),
  ...extra,
});

describe('chat approvals', () => {
  it('asks only clients that declared form elicitation (an empty elicitation object means form)', () => {
    expect(canAskInChat(undefined)).toBe(false);
    expect(canAskInChat({})).toBe(false);
    expect(canAskInChat({ elicitation: {} })).toBe(true);
    expect(canAskInChat({ elicitation: { form: {} } })).toBe(true);
    expect(canAskInChat({ elicitation: { url: {} } })).toBe(false);
  });

  it('says what will run and where, with the three choices in an existing session', () => {
    const question = chatQuestion(approval());
    expect(question.message).toBe(
      'Sandpit asks: may claude-code do this?\nRun code in the session "Python 1" (it has network access).\nEnvironment: Data science\nNetwork: open (it can reach the internet)\n\nCode:\nprint(1)\n\nThe Sandpit panel asks the same; whichever you answer first decides.',
    );
    expect(question.requestedSchema).toEqual({
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Your answer',
          oneOf: [
            { const: 'approve', title: 'Approve' },
            { const: 'deny', title: 'Deny' },
            { const: 'approve-session', title: 'Approve for this session' },
          ],
        },
      },
      required: ['decision'],
    });
  });

  it('abbreviates long code (the panel shows all of it) and offers no "for this session" for a new session', () => {
    const code = 'x = 1\n'.repeat(1_000);
    const question = chatQuestion(approval({ sessionId: undefined, environment: undefined, network: undefined, code, kind: 'install' }));
    expect(question.message).toContain(`Packages:\n${code.slice(0, CHAT_CODE_CHARS)}\n… (${code.length - CHAT_CODE_CHARS} more characters; the Sandpit panel shows all of it)`);
    expect(question.message).not.toContain('Network:');
    const choices = (question.requestedSchema.properties.decision as { oneOf: Array<{ title: string }> }).oneOf.map((o) => o.title);
    expect(choices).toEqual(['Approve', 'Deny']);
  });
});
