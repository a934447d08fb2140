import { describe, expect, it, vi } from 'vitest';
import type { Environment } from '../../shared/domain/environment';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { ApprovalQueue } from '../approvals/approval-queue';
import { EventBus } from '../events/event-bus';
import { fakeSessions, onlyHandlers } from '../../test-support/policy';
import { WAITING_FOR_APPROVAL } from './approved';
import type { CallContext, Handlers } from './api-types';
import { METHOD_POLICY } from './method-policy';
import type { PolicyTable } from './method-policy';
import { withPolicy } from './with-policy';

interface Setup {
  api: Handlers;
  queue: ApprovalQueue;
  ran: string[];
  settings: ApprovalSettings;
}

/** The gate over fake handlers that record what ran; `networked` sessions have a network. */
type EnvironmentFacts = Pick<Environment, 'network' | 'allowedHosts' | 'folders'>;

function setup(
  policy: ApprovalSettings['defaultPolicy'],
  options: { defaults?: Record<string, string>; networked?: string[]; environments?: Record<string, EnvironmentFacts> } = {},
): Setup {
  const ran: string[] = [];
  const record = (name: string) => async (): Promise<never> => {
    ran.push(name);
    return {} as never;
  };
  const handlers = onlyHandlers({
    'sessions.create': record('sessions.create'),
    'sessions.execute': record('sessions.execute'),
    'sessions.runCommand': record('sessions.runCommand'),
    'sessions.runFile': record('sessions.runFile'),
    'packages.install': record('packages.install'),
    'sessions.list': record('sessions.list'),
  });
  const sessions = fakeSessions({ foreign: ['ses-other'], networked: options.networked ?? [] });
  const defaultSession = (principal: string, language: string): string | undefined => options.defaults?.[`${principal}/${language}`];
  const settings: ApprovalSettings = { defaultPolicy: policy, perClient: {}, timeoutSeconds: 60 };
  const queue = new ApprovalQueue(new EventBus());
  // The table without its audit rules: these tests are about the gate.
  const table = Object.fromEntries(Object.entries(METHOD_POLICY).map(([name, policy]) => [name, { ...policy, audit: undefined }])) as unknown as PolicyTable;
  return { api: withPolicy(handlers, { audit: {} as never, approvals: { queue, settings: () => settings, sessions, defaultSession, environment: async (name) => options.environments?.[name] } }, table), queue, ran, settings };
}

const mcp = (extra: Partial<CallContext> = {}): CallContext => ({ transport: 'mcp-http', client: 'claude-ai', principal: 'mcp:1', ...extra });

async function answerNext(queue: ApprovalQueue, decision: 'approve' | 'deny'): Promise<string> {
  for (let i = 0; i < 100 && queue.list().length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  const approval = queue.list()[0];
  if (!approval) throw new Error('nothing asked');
  queue.respond(approval.id, decision);
  return approval.detail;
}

describe('the approval gate (withPolicy)', () => {
  it('never asks the panel', async () => {
    const { api, queue, ran } = setup('ask-every');
    await api['sessions.execute']({ code: '1' }, { transport: 'ipc' });
    await api['packages.install']({ packages: ['numpy'] }, { transport: 'http', client: 'panel' });
    expect(queue.list()).toEqual([]);
    expect(ran).toEqual(['sessions.execute', 'packages.install']);
  });

  it("asks a free client whose own configuration asks for more (approvalFloor), and lets a looser floor change nothing", async () => {
    const { api, queue, ran } = setup('free');
    const call = api['sessions.execute']({ code: '1' }, mcp({ approvalFloor: 'ask-every' }));
    await answerNext(queue, 'approve');
    await call;
    expect(ran).toEqual(['sessions.execute']);
    const strict = setup('ask-every');
    const asked = strict.api['sessions.execute']({ code: '2' }, mcp({ approvalFloor: 'free' }));
    await answerNext(strict.queue, 'deny');
    await expect(asked).rejects.toMatchObject({ code: 'DENIED' });
  });

  it('lets a free client run without asking, and leaves other methods alone', async () => {
    const { api, queue, ran } = setup('free');
    await api['sessions.execute']({ code: '1' }, mcp());
    await api['sessions.list']({}, mcp());
    expect(queue.list()).toEqual([]);
    expect(ran).toEqual(['sessions.execute', 'sessions.list']);
  });

  it('under ask-every waits for approval before the call runs, and reports the wait', async () => {
    const { api, queue, ran } = setup('ask-every', { defaults: { 'mcp:1/python': 'ses-d' } });
    const waits: Array<string | undefined> = [];
    const call = api['sessions.runCommand']({ command: 'ls -la' }, mcp({ onWaiting: (what) => waits.push(what) }));
    await Promise.resolve();
    expect(ran).toEqual([]);
    const [approval] = queue.list();
    expect(approval).toMatchObject({ kind: 'run-command', code: 'ls -la', sessionId: 'ses-d', client: 'claude-ai', transport: 'mcp-http' });
    queue.respond(approval!.id, 'approve');
    await call;
    expect(ran).toEqual(['sessions.runCommand']);
    expect(waits).toEqual([WAITING_FOR_APPROVAL, undefined]);
  });

  it('never runs a denied call', async () => {
    const { api, queue, ran } = setup('ask-every');
    const call = api['sessions.execute']({ code: 'import os' }, mcp());
    await answerNext(queue, 'deny');
    await expect(call).rejects.toMatchObject({ code: 'DENIED', message: 'The person using Sandpit denied this run.' });
    expect(ran).toEqual([]);
  });

  it('under ask-new asks for a first run (new default session), installs, new sessions and networked sessions only', async () => {
    const { api, queue, ran } = setup('ask-new', { defaults: { 'mcp:1/python': 'ses-d' }, networked: ['ses-net'] });
    await api['sessions.execute']({ code: '1' }, mcp());
    await api['sessions.execute']({ code: '1', sessionId: 'ses-d' }, mcp());
    expect(queue.list()).toEqual([]);

    const first = api['sessions.execute']({ code: '1', language: 'javascript' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Run code in a new JavaScript session');
    await first;
    const networked = api['sessions.execute']({ code: '1', sessionId: 'ses-net' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Run code in the session "Session ses-net" (it has network access)');
    await networked;
    const install = api['packages.install']({ packages: ['numpy', 'pandas'] }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Install numpy, pandas from the package index in the session "Session ses-d"');
    await install;
    const create = api['sessions.create']({ dependencies: ['numpy'] }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Start a new Python session and install numpy from the package index');
    await create;
    expect(ran).toEqual(['sessions.execute', 'sessions.execute', 'sessions.execute', 'sessions.execute', 'packages.install', 'sessions.create']);
  });

  it("uses the client's own policy and reads the settings on every call", async () => {
    const { api, queue, ran, settings } = setup('ask-every');
    settings.perClient = { 'claude-ai': 'free' };
    await api['sessions.execute']({ code: '1' }, mcp());
    expect(queue.list()).toEqual([]);
    settings.perClient = {};
    const asked = api['sessions.execute']({ code: '1' }, mcp());
    await answerNext(queue, 'approve');
    await asked;
    expect(ran).toHaveLength(2);
  });

  it("refuses someone else's session as missing before asking anyone", async () => {
    const { api, queue } = setup('ask-every');
    await expect(api['sessions.execute']({ code: '1', sessionId: 'ses-other' }, mcp())).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(queue.list()).toEqual([]);
  });

  it('withdraws the request when the caller gives up', async () => {
    const { api, queue, ran } = setup('ask-every');
    const controller = new AbortController();
    const onWaiting = vi.fn();
    const call = api['sessions.execute']({ code: '1' }, mcp({ signal: controller.signal, onWaiting }));
    await Promise.resolve();
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'DENIED' });
    expect(queue.list()).toEqual([]);
    expect(ran).toEqual([]);
    expect(onWaiting).toHaveBeenLastCalledWith(undefined);
  });

  it('says what a new session from an environment opens: its network and the folders of this computer it gets', async () => {
    const environments: Record<string, EnvironmentFacts> = {
      Analysis: { network: 'packages', allowedHosts: ['files.example.org'], folders: [{ hostPath: '/home/ana/sales', mode: 'rw' }, { hostPath: '/home/ana/ref', mode: 'ro' }] },
      Web: { network: 'open', allowedHosts: [], folders: [] },
      Plain: { network: 'none', allowedHosts: [], folders: [] },
    };
    const { api, queue } = setup('ask-new', { environments });
    const analysis = api['sessions.create']({ environment: 'Analysis' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe(
      'Start a new session from the environment "Analysis"; it may download packages and reach files.example.org; it can change /home/ana/sales on this computer; it can read /home/ana/ref on this computer',
    );
    await analysis;
    const web = api['sessions.create']({ environment: 'Web' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Start a new session from the environment "Web"; it will have unrestricted network access');
    await web;
    const plain = api['sessions.create']({ environment: 'Plain' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Start a new session from the environment "Plain"');
    await plain;
    // An environment that cannot be found is the call's own error to give: the prompt says only what is known.
    const unknown = api['sessions.create']({ environment: 'Nowhere' }, mcp());
    expect(await answerNext(queue, 'approve')).toBe('Start a new session from the environment "Nowhere"');
    await unknown;
  });

  it('refuses secrets on a new session from anyone but the panel, before anyone is asked and before it runs; without them it goes on', async () => {
    const { api, queue, ran } = setup('ask-every');
    const words = 'Only the Sandpit panel may attach secrets to a session.';
    await expect(api['sessions.create']({ environment: 'Weather', secrets: ['weather'] }, mcp())).rejects.toMatchObject({ code: 'DENIED', message: words });
    await expect(api['sessions.create']({ secrets: ['weather'] }, { transport: 'http', client: 'script', principal: 'token:abc' })).rejects.toMatchObject({ code: 'DENIED', message: words });
    expect(queue.list()).toEqual([]);
    expect(ran).toEqual([]);
    // The panel may; an assistant with an empty list or none is asked as usual.
    await api['sessions.create']({ environment: 'Weather', secrets: ['weather'] }, { transport: 'ipc' });
    const plain = api['sessions.create']({ secrets: [] }, mcp());
    await answerNext(queue, 'approve');
    await plain;
    expect(ran).toEqual(['sessions.create', 'sessions.create']);
  });
});
