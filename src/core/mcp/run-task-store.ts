import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { toErrorBody } from '../../shared/api/errors';
import type { ToolKit } from './tool-kit';

/** How long a task is kept when the client asks for no time: the background runs' own default limit, one hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** The longest a client may ask a task to be kept. */
const MAX_TASK_TTL_MS = 24 * 3_600_000;

/**
 * The MCP Tasks (2025-11-25) of one MCP server, each backed by a background run: the SDK's in-memory store keeps
 * the task records, and a task cancelled through `tasks/cancel` cancels its run (a store's status change is the
 * one place every cancel passes through).
 */
export class RunTaskStore implements TaskStore {
  private readonly store = new InMemoryTaskStore();
  private readonly runs = new Map<string, string>();

  constructor(private readonly kit: ToolKit) {}

  /** Notes that `taskId` is backed by the background run `runId`. */
  link(taskId: string, runId: string): void {
    this.runs.set(taskId, runId);
  }

  createTask(taskParams: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    const ttl = Math.min(taskParams.ttl ?? DEFAULT_TASK_TTL_MS, MAX_TASK_TTL_MS);
    return this.store.createTask({ ...taskParams, ttl }, requestId, request, sessionId);
  }
  getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    return this.store.getTask(taskId, sessionId);
  }
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    return this.store.storeTaskResult(taskId, status, result, sessionId);
  }
  getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    return this.store.getTaskResult(taskId, sessionId);
  }
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await this.store.updateTaskStatus(taskId, status, statusMessage, sessionId);
    const runId = this.runs.get(taskId);
    if (status === 'cancelled' && runId) {
      await this.kit.call('runs.cancel', { runId }).catch((error: unknown) =>
        this.kit.log.warn('could not cancel the run of a cancelled task', { taskId, runId, error: toErrorBody(error).message }),
      );
    }
  }
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.store.listTasks(cursor, sessionId);
  }

  /** Stops the cleanup timers (the MCP server closed). */
  close(): void {
    this.store.cleanup();
  }
}
