import { describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../shared/api/contract';
import type { MethodName } from '../../shared/api/contract';
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
    expect(asked.sort()).toEqual(['packages.check', 'packages.install', 'processes.start', 'sessions.create', 'sessions.execute', 'sessions.fork', 'sessions.runCommand', 'sessions.runFile', 'snapshots.restore']);
  });

  it('keeps the token, settings changes, approvals and environment edits to the panel', () => {
    const panelOnly = METHOD_NAMES.filter((name) => METHOD_POLICY[name].access !== 'any');
    for (const name of ['connect.revealToken', 'connect.rotateToken', 'connect.assistants', 'connect.connectAssistant', 'connect.disconnectAssistant', 'settings.update', 'approvals.list', 'approvals.respond', 'environments.create', 'environments.remove'] as const) {
      expect(panelOnly).toContain(name);
    }
    // What an assistant needs stays open to it.
    for (const name of ['sessions.create', 'sessions.execute', 'files.read', 'environments.list', 'packages.install'] as const) expect(panelOnly).not.toContain(name);
  });

  it('audits and asks about every method an assistant may call that can start code in a sandbox (a new one counts as such)', () => {
    const problems: string[] = [];
    for (const name of METHOD_NAMES) {
      const policy = METHOD_POLICY[name];
      // The person in the panel is never asked (and panel-only runs go through the audited methods below).
      if (policy.access !== 'any') continue;
      if (Object.hasOwn(STARTS_NO_CODE, name)) continue;
      const passed = PASSES_THROUGH[name];
      if (passed) {
        for (const inner of passed) {
          if (!METHOD_POLICY[inner].audit || !METHOD_POLICY[inner].approval) problems.push(`${name} hands its run to ${inner}, which is not audited and asked about`);
        }
        continue;
      }
      const through = RUNS_THROUGH[name];
      if (through) {
        if (!policy.approval) problems.push(`${name} starts code through ${through.join(', ')} but is never asked about`);
        for (const inner of through) {
          if (!METHOD_POLICY[inner].audit || !METHOD_POLICY[inner].approval) problems.push(`${name} runs through ${inner}, which is not audited and asked about`);
        }
        continue;
      }
      if (!policy.audit) problems.push(`${name} may start code in a sandbox and writes no audit row`);
      if (!policy.approval) problems.push(`${name} may start code in a sandbox and is never asked about`);
    }
    expect(problems, 'give the method an audit and an approval rule, or say in STARTS_NO_CODE why it starts nothing').toEqual([]);
    // The lists name methods that exist (a renamed one must be classified again).
    for (const name of [...Object.keys(STARTS_NO_CODE), ...Object.keys(RUNS_THROUGH), ...Object.keys(PASSES_THROUGH)]) expect(METHOD_NAMES).toContain(name);
  });

  it('counts package checks, installs, commands, files and code among what starts code', () => {
    for (const name of ['packages.check', 'packages.install', 'sessions.runCommand', 'sessions.runFile', 'sessions.execute'] as const) {
      expect(Object.hasOwn(STARTS_NO_CODE, name), name).toBe(false);
      expect(METHOD_POLICY[name].audit?.method, name).toBe(name);
      expect(METHOD_POLICY[name].approval, name).toBeDefined();
    }
  });
});

/**
 * The methods open to assistants that cannot start code in a sandbox, each with the reason. Every other such
 * method — including any added to the contract later — is taken to start code, and must be audited and asked about.
 */
const STARTS_NO_CODE: Partial<Record<MethodName, string>> = {
  'processes.list': 'lists the processes start_process started',
  'processes.output': 'reads what a process wrote',
  'processes.stop': 'stops a process',
  'previews.open': "shows what the sandbox serves to the person (its forwarder is Sandpit's own, and the sandbox keeps no network)",
  'previews.list': 'lists previews',
  'previews.stop': 'stops a preview',
  'previews.ports': 'reads which ports the sandbox listens on',
  'engine.status': 'asks the engine how it is',
  'sessions.list': 'reads the session table',
  'sessions.get': 'reads the session table',
  'sessions.stop': 'removes the sandbox',
  'sessions.restart': "starts Sandpit's own agent again, which loads nothing from the workspace (agent-imports.test.ts, planted-modules.docker.test.ts)",
  'sessions.setKept': 'marks a session kept',
  'sessions.stats': 'asks the engine for resource use',
  'sessions.interrupt': 'signals the run in progress',
  'egress.recent': 'reads the egress log',
  'files.write': 'writes a file through the agent, never runs it',
  'files.read': 'reads a file through the agent',
  'files.list': 'lists files through the agent',
  'changes.list': "reads the session's review layer on the host (no code in the sandbox)",
  'changes.diff': "reads the session's review layer and the person's file on the host",
  'environments.list': 'reads the environment store',
  'environments.get': 'reads the environment store',
  'snapshots.create': 'reads files through the agent and the package store through the engine',
  'snapshots.list': 'reads the snapshot store',
  'snapshots.delete': 'deletes from the snapshot store',
  'artifacts.list': 'reads the artifact store',
  'artifacts.read': 'reads the artifact store',
  'audit.list': 'reads the audit log',
  'audit.get': 'reads the audit log',
  'audit.verify': 'reads the audit log',
  'audit.export': 'reads the audit log',
  'audit.notebook': 'builds a notebook from audit rows; runs nothing',
  'settings.get': 'reads the settings',
  'connect.info': 'reads the endpoints',
  'runs.get': 'reads a background run',
  'runs.cancel': 'interrupts a background run',
  'runs.list': 'reads the background runs',
};

/** Methods that start code only by calling other methods of the table, whose runs are audited and asked about one by one. */
const RUNS_THROUGH: Partial<Record<MethodName, MethodName[]>> = {
  'sessions.create': ['packages.install'],
  'snapshots.restore': ['sessions.execute'],
  'sessions.fork': ['sessions.execute'],
};

/**
 * Methods that do nothing themselves but hand their one run, as it is, to one of these methods through the table
 * (a background run: runs.start), so that method's own row asks about it and audits it — once.
 */
const PASSES_THROUGH: Partial<Record<MethodName, MethodName[]>> = {
  'runs.start': ['sessions.execute', 'sessions.runCommand', 'sessions.runFile'],
};
