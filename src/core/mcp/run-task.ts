import type { CreateTaskRequestHandlerExtra, CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { MethodInput } from '../../shared/api/contract';
import { toErrorBody } from '../../shared/api/errors';
import type { BackgroundRun } from '../../shared/domain/background-run';
import { toCallToolResult } from './tool-output';
import { finishedRunOutput } from './run-result';
import type { RunTaskStore } from './run-task-store';
import type { ToolKit } from './tool-kit';

/** How often a client should ask for a task's status (it also hears status notifications). */
const POLL_INTERVAL_MS = 1_000;

const finished = (run: BackgroundRun): boolean => run.state === 'done' || run.state === 'failed';

function statusMessage(run: BackgroundRun): string {
  const base = `background run ${run.runId}${run.sessionId ? ` in session ${run.sessionId}` : ''}`;
  if (run.state === 'queued') return `${base}: ${run.waiting ?? 'queued'}`;
  return `${base}: running`;
}

/** Puts the run's end into its task: the foreground call's result, or the error that kept it from running. */
async function settle(kit: ToolKit, store: RequestTaskStore, taskId: string, runId: string): Promise<void> {
  const answer = await kit.call('runs.get', { runId, maxChars: 1 });
  const task = await store.getTask(taskId).catch(() => undefined);
  // Cancelled (tasks/cancel) or cleaned up: the task is over already, whatever the run says.
  if (!task || task.status === 'cancelled' || task.status === 'completed' || task.status === 'failed') return;
  const output = await finishedRunOutput(answer, kit);
  if (output) {
    await store.storeTaskResult(taskId, 'completed', toCallToolResult(output));
    return;
  }
  const error = answer.run.error ?? { code: 'INTERNAL', message: 'The run ended without a result.' };
  await store.storeTaskResult(taskId, 'failed', { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] });
}

/**
 * tools/call with task augmentation (MCP Tasks, 2025-11-25) of a run tool: starts the run in the background (asked
 * about, audited and queued like any run) and answers with a task at once; the task follows the run — status
 * notifications as it starts, its result (the foreground call's) when it ends; tasks/cancel cancels the run.
 */
export async function createRunTask(
  kit: ToolKit,
  tasks: RunTaskStore,
  input: MethodInput<'runs.start'>,
  extra: CreateTaskRequestHandlerExtra,
): Promise<CreateTaskResult> {
  const run = await kit.call('runs.start', input);
  const task = await extra.taskStore.createTask({ ...(extra.taskRequestedTtl === undefined ? {} : { ttl: extra.taskRequestedTtl }), pollInterval: POLL_INTERVAL_MS });
  tasks.link(task.taskId, run.runId);
  const store = extra.taskStore;
  const log = (error: unknown): void => kit.log.warn('could not update a task from its run', { taskId: task.taskId, runId: run.runId, error: toErrorBody(error).message });
  let lastMessage = '';
  let settled = false;
  const off = kit.sandpit.bus.on('run.updated', (view) => {
    if (view.runId !== run.runId || settled) return;
    if (finished(view)) {
      settled = true;
      off();
      settle(kit, store, task.taskId, run.runId).catch(log);
      return;
    }
    const message = statusMessage(view);
    if (message === lastMessage) return;
    lastMessage = message;
    store.updateTaskStatus(task.taskId, 'working', message).catch(log);
  });
  // It may have ended (or failed to start) while the task was being made.
  const now = await kit.call('runs.get', { runId: run.runId, maxChars: 1 });
  if (finished(now.run) && !settled) {
    settled = true;
    off();
    await settle(kit, store, task.taskId, run.runId).catch(log);
  }
  return { task: { ...task, ...(settled ? {} : { statusMessage: statusMessage(now.run) }) } };
}

