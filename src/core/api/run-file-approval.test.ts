import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { ApprovalQueue } from '../approvals/approval-queue';
import type { DockerClient } from '../docker/docker-client';
import { packFiles } from '../files/safe-tar';
import type { SessionManager } from '../sessions/session-manager';
import type { DefaultSessions } from './default-sessions';
import { EventBus } from './event-bus';
import { withApprovals } from './approved';
import { runHandlers } from './run-handlers';
import type { CallContext, HandlerKit, Handlers } from './sandpit-api';

const MCP: CallContext = { transport: 'mcp-http', client: 'claude-ai', principal: 'mcp:1' };

interface Setup {
  api: Handlers;
  queue: ApprovalQueue;
  /** The workspace of every session: path → text (change it to play a write by the sandbox). */
  files: Map<string, string>;
  /** What sessions.execute was asked to run, with the session. */
  ran: Array<{ sessionId: string; code: string }>;
}

/**
 * The real approval gate over the real run handlers, with fake sessions (python `ses-py`, bash
 * `ses-sh`, the caller's defaults) whose workspace files are read through a fake engine's getArchive.
 */
function setup(policy: ApprovalSettings['defaultPolicy']): Setup {
  const files = new Map<string, string>();
  const ran: Setup['ran'] = [];
  const docker = {
    getArchive: async (_containerId: string, path: string) => {
      const name = path.replace('/workspace/', '');
      const text = files.get(name);
      if (text === undefined) throw new Error(`no ${name}`);
      return Readable.from(await packFiles([{ path: name, content: Buffer.from(text) }], { maxFileBytes: 1 << 20, maxTotalBytes: 1 << 20 }));
    },
  } as unknown as DockerClient;
  const languages: Record<string, string> = { 'ses-py': 'python', 'ses-sh': 'bash' };
  const sessions = {
    access: () => ({}),
    get: (id: string) => ({ id, language: languages[id], containerId: `c-${id}` }),
    runtimeOf: (id: string) => ({ containerId: `c-${id}`, options: { docker, network: undefined } }),
    execute: async (sessionId: string, code: string) => {
      ran.push({ sessionId, code });
      return { sessionId, status: 'ok' };
    },
  } as unknown as SessionManager;
  const byLanguage: Record<string, string> = { python: 'ses-py', bash: 'ses-sh' };
  const defaults = { current: (_principal: string, language: string) => byLanguage[language] } as unknown as DefaultSessions;
  const kit = {
    sessions,
    docker,
    target: async (sessionId: string | undefined, _context: CallContext, language?: string) => sessionId ?? byLanguage[language ?? 'python'],
  } as unknown as HandlerKit;
  const handlers = runHandlers(kit) as unknown as Handlers;
  const settings: ApprovalSettings = { defaultPolicy: policy, perClient: {}, timeoutSeconds: 60 };
  const queue = new ApprovalQueue(new EventBus());
  return { api: withApprovals(handlers, { queue, settings: () => settings, sessions, defaults }), queue, files, ran };
}

async function nextApproval(queue: ApprovalQueue): Promise<ReturnType<ApprovalQueue['list']>[number]> {
  for (let i = 0; i < 200 && queue.list().length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  const approval = queue.list()[0];
  if (!approval) throw new Error('nothing asked');
  return approval;
}

describe('run_file under approval', () => {
  it('runs exactly the text the person approved, even when the file changes after the prompt', async () => {
    const { api, queue, files, ran } = setup('ask-every');
    files.set('job.py', 'print("what the person read")');
    const call = api['sessions.runFile']({ path: 'job.py', sessionId: 'ses-py' }, MCP);
    const approval = await nextApproval(queue);
    expect(approval.code).toBe('print("what the person read")');
    files.set('job.py', 'import os; os.system("something else")'); // written while the prompt was open
    queue.respond(approval.id, 'approve');
    await call;
    expect(ran).toEqual([{ sessionId: 'ses-py', code: 'print("what the person read")' }]);
  });

  it('reads the file at run time when no approval was needed', async () => {
    const { api, queue, files, ran } = setup('free');
    files.set('job.py', 'print(1)');
    await api['sessions.runFile']({ path: '/workspace/job.py', sessionId: 'ses-py' }, MCP);
    expect(queue.list()).toEqual([]);
    expect(ran).toEqual([{ sessionId: 'ses-py', code: 'print(1)' }]);
  });

  it('asks about a .sh file in the bash session it runs in, with its text', async () => {
    const { api, queue, files, ran } = setup('ask-every');
    files.set('build.sh', 'echo built');
    const call = api['sessions.runFile']({ path: 'build.sh' }, MCP);
    const approval = await nextApproval(queue);
    expect(approval).toMatchObject({ sessionId: 'ses-sh', code: 'echo built', detail: 'Run the file build.sh in session ses-sh' });
    queue.respond(approval.id, 'approve');
    await call;
    expect(ran).toEqual([{ sessionId: 'ses-sh', code: 'echo built' }]);
  });
});
