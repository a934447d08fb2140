import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import type { Language } from '../../shared/domain/languages';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { ApprovalQueue } from '../approvals/approval-queue';
import { EventBus } from '../events/event-bus';
import type { HostMessage, RequestReply } from '../sandbox/protocol';
import { silentLogger } from '../log';
import type { SandboxDriver } from '../sessions/sandbox-driver';
import { Session } from '../sessions/session';
import type { SessionServices } from '../sessions/session-types';
import type { SessionManager } from '../sessions/session-manager';
import { Semaphore } from '../util/semaphore';
import type { CallContext, Handlers } from './api-types';
import type { BackgroundRuns } from './background-runs';
import type { HandlerKit } from './handler-kit';
import { runHandlers } from './run-handlers';
import { withPolicy } from './with-policy';

const MCP: CallContext = { transport: 'mcp-http', client: 'claude-ai', principal: 'mcp:1' };

interface Setup {
  api: Handlers;
  queue: ApprovalQueue;
  /** The workspace of every session: path → text (change it to play a write by the sandbox). */
  files: Map<string, string>;
  /** What ran, with the session. */
  ran: Array<{ sessionId: string; code: string }>;
}

/**
 * The real policy wrapper and approval gate over the real run handlers and real Sessions (python
 * `ses-py`, bash `ses-sh`: the caller's defaults), whose sandboxes are fakes: files are read through
 * their getArchive, and a run records the code it was given.
 */
function setup(policy: ApprovalSettings['defaultPolicy']): Setup {
  const files = new Map<string, string>();
  const ran: Setup['ran'] = [];
  const bus = new EventBus();
  const services = { slots: new Semaphore(4), queueTimeoutMs: 1_000, bus, log: silentLogger, engine: { markDown: () => undefined } } as unknown as SessionServices;
  const makeSession = (id: string, language: Language): Session => {
    const runtime = {
      id,
      containerId: `c-${id}`,
      connected: true,
      options: { backend: { channel: 'attach' } },
      // The agent's side of a file read: the file's bytes, then done (or NOT_FOUND).
      request: async (build: (id: string) => HostMessage[], collect: (reply: RequestReply) => unknown) => {
        const [message] = build('q1');
        if (message?.type !== 'fs' || message.op !== 'read') throw new Error(`unexpected request ${JSON.stringify(message)}`);
        const text = files.get(message.path);
        if (text === undefined) return collect({ type: 'fs-error', id: 'q1', code: 'NOT_FOUND', message: 'No such file' });
        collect({ type: 'fs-data', id: 'q1', data: Buffer.from(text).toString('base64') });
        return collect({ type: 'fs-done', id: 'q1', size: text.length });
      },
      run: async ({ code }: { code: string }) => {
        ran.push({ sessionId: id, code });
        return { status: 'ok', stdout: '', stderr: '', displays: [], truncated: { stdout: false, stderr: false }, durationMs: 1, stateLost: false };
      },
    } as unknown as SandboxDriver;
    const identity = { language, image: 'img', limits: DEFAULT_LIMITS, name: id, networkPolicy: 'none', isolation: 'standard', owner: 'mcp:1', idleTtlMs: 60_000, fromPool: false } as const;
    return new Session(runtime, identity, { ...services, artifacts: { put: () => Promise.reject(new Error('no artifacts')) } } as unknown as SessionServices, 'ready');
  };
  const all = new Map<string, Session>([
    ['ses-py', makeSession('ses-py', 'python')],
    ['ses-sh', makeSession('ses-sh', 'bash')],
  ]);
  const byLanguage: Record<string, string> = { python: 'ses-py', bash: 'ses-sh' };
  const sessions = { access: (id: string) => all.get(id) } as unknown as SessionManager;
  const kit = {
    sessions,
    target: async (sessionId: string | undefined, _context: CallContext, language?: Language) => all.get(sessionId ?? byLanguage[language ?? 'python']!)!,
  } as unknown as HandlerKit;
  const handlers = runHandlers(kit, { describeQueue: () => undefined } as unknown as BackgroundRuns) as unknown as Handlers;
  const settings: ApprovalSettings = { defaultPolicy: policy, perClient: {}, timeoutSeconds: 60 };
  const queue = new ApprovalQueue(new EventBus());
  const audit = { audit: { begin: () => ({ id: 1 }), complete: () => ({ id: 1 }) }, bus } as never;
  const approvals = { queue, settings: () => settings, sessions, defaultSession: (_principal: string, language: Language) => byLanguage[language] };
  return { api: withPolicy(handlers, { audit, approvals }), queue, files, ran };
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
    expect(approval).toMatchObject({ sessionId: 'ses-sh', code: 'echo built', detail: 'Run the file build.sh in the session "ses-sh"' });
    queue.respond(approval.id, 'approve');
    await call;
    expect(ran).toEqual([{ sessionId: 'ses-sh', code: 'echo built' }]);
  });
});
