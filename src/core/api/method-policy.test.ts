import { describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../shared/api/contract';
import { AUDITED_METHODS } from '../../shared/domain/audit';
import { METHOD_POLICY } from './method-policy';

describe('the policy table', () => {
  it('has an entry for every method of the contract, and for nothing else', () => {
    expect(Object.keys(METHOD_POLICY).sort()).toEqual([...METHOD_NAMES].sort());
    for (const name of METHOD_NAMES) expect(METHOD_POLICY[name], name).toBeDefined();
  });

  it('audits exactly the calls that run code or install packages, each under its own name', () => {
    const audited = METHOD_NAMES.filter((name) => METHOD_POLICY[name].audit !== undefined);
    expect(audited.sort()).toEqual([...AUDITED_METHODS].sort());
    for (const name of audited) expect(METHOD_POLICY[name].audit?.method).toBe(name);
  });

  it('may ask the person before anything runs code, installs or makes a session', () => {
    const asked = METHOD_NAMES.filter((name) => METHOD_POLICY[name].approval !== undefined);
    expect(asked.sort()).toEqual(['packages.install', 'sessions.create', 'sessions.execute', 'sessions.fork', 'sessions.runCommand', 'sessions.runFile', 'snapshots.restore']);
  });

  it('keeps the token, settings changes, approvals and environment edits to the panel', () => {
    const panelOnly = METHOD_NAMES.filter((name) => METHOD_POLICY[name].access !== 'any');
    for (const name of ['connect.revealToken', 'connect.rotateToken', 'connect.assistants', 'connect.connectAssistant', 'connect.disconnectAssistant', 'settings.update', 'approvals.list', 'approvals.respond', 'environments.create', 'environments.remove'] as const) {
      expect(panelOnly).toContain(name);
    }
    // What an assistant needs stays open to it.
    for (const name of ['sessions.create', 'sessions.execute', 'files.read', 'environments.list', 'packages.install'] as const) expect(panelOnly).not.toContain(name);
  });
});
