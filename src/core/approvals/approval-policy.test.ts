import { describe, expect, it } from 'vitest';
import type { ApprovalKind } from '../../shared/domain/approval';
import { needsApproval, policyFor } from './approval-policy';

const run = (kind: ApprovalKind, newSession = false, networked = false): { kind: ApprovalKind; newSession: boolean; networked: boolean } => ({ kind, newSession, networked });

describe('approval policies', () => {
  it('free never asks, ask-every always asks', () => {
    for (const kind of ['execute', 'run-command', 'run-file', 'install', 'create-session'] as const) {
      expect(needsApproval('free', run(kind, true, true))).toBe(false);
      expect(needsApproval('ask-every', run(kind))).toBe(true);
    }
  });

  it('ask-new asks for new sessions, installs and networked sessions only', () => {
    expect(needsApproval('ask-new', run('execute'))).toBe(false);
    expect(needsApproval('ask-new', run('run-command'))).toBe(false);
    expect(needsApproval('ask-new', run('run-file'))).toBe(false);
    expect(needsApproval('ask-new', run('execute', true))).toBe(true);
    expect(needsApproval('ask-new', run('execute', false, true))).toBe(true);
    expect(needsApproval('ask-new', run('install'))).toBe(true);
    expect(needsApproval('ask-new', run('create-session'))).toBe(true);
  });

  it("uses the client's own policy, else the default (no prototype keys)", () => {
    const settings = { defaultPolicy: 'ask-new' as const, perClient: { cursor: 'free' as const }, timeoutSeconds: 60 };
    expect(policyFor(settings, 'cursor')).toBe('free');
    expect(policyFor(settings, 'claude-ai')).toBe('ask-new');
    expect(policyFor(settings, undefined)).toBe('ask-new');
    expect(policyFor(settings, 'constructor')).toBe('ask-new');
    expect(policyFor(settings, '__proto__')).toBe('ask-new');
  });

  it("takes a client's own stricter floor (an extension's setting), and never loosens the settings with it", () => {
    const settings = { defaultPolicy: 'ask-new' as const, perClient: { cursor: 'free' as const }, timeoutSeconds: 60 };
    expect(policyFor(settings, 'cursor', 'ask-every')).toBe('ask-every');
    expect(policyFor(settings, 'cursor', 'ask-new')).toBe('ask-new');
    expect(policyFor(settings, 'claude-ai', 'free')).toBe('ask-new');
    expect(policyFor({ ...settings, defaultPolicy: 'ask-every' }, 'claude-ai', 'ask-new')).toBe('ask-every');
  });
});
