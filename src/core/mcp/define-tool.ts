import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { toErrorBody } from '../../shared/api/errors';
import type { CreateTaskRequestHandlerExtra, TaskRequestHandlerExtra, ToolTaskHandler } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { MethodInput } from '../../shared/api/contract';
import { startBackground } from './background-output';
import { createRunTask } from './run-task';
import type { RunTaskStore } from './run-task-store';
import type { ToolExtra } from './tool-extra';
import type { ToolKit } from './tool-kit';
import { toCallToolResult } from './tool-output';
import type { ToolOutput } from './tool-output';
import { CONSOLE_APP_META } from './console-app';

/** All four hints, always set: clients decide on confirmations from them. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  hints: ToolHints;
  run(args: z.output<z.ZodObject<I>>, kit: ToolKit, extra: ToolExtra): Promise<ToolOutput<z.input<z.ZodObject<O>>>>;
  /**
   * A run tool's background form (issue 23): the run its arguments stand for. With it the tool also runs as an MCP
   * task (taskSupport "optional"): a tools/call with task augmentation becomes a background run; one without runs as before.
   */
  background?(args: z.output<z.ZodObject<I>>): MethodInput<'runs.start'>;
}

/** A tool with its types erased, ready to be registered on a server. */
export interface SandpitTool {
  name: string;
  /** Registers the tool; with `tasks`, a tool that has a background form is registered as a task tool too. */
  register(server: McpServer, kit: ToolKit, tasks?: RunTaskStore): void;
}

/** The foreground callback a task tool keeps for calls without task augmentation (see create-mcp-server.ts). */
export const FOREGROUND = Symbol('foreground');

/** A failure as a tool result the model reads (`isError`), never a protocol error: `CODE: message`. */
export function toolError(error: unknown): CallToolResult {
  const body = toErrorBody(error);
  return { isError: true, content: [{ type: 'text', text: `${body.code}: ${body.message}` }] };
}

/** Declares a tool (one file each in tools/); its failures become `isError` results. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  definition: ToolDefinition<I, O>,
): SandpitTool {
  return {
    name: definition.name,
    register: (server, kit, tasks) => {
      const callback = async (args: z.output<z.ZodObject<I>>, extra: ToolExtra): Promise<CallToolResult> => {
        try {
          const background = definition.background && (args as { background?: boolean }).background === true ? definition.background(args) : undefined;
          const output = background ? await startBackground(kit.forRequest(extra), background) : await definition.run(args, kit.forRequest(extra), extra);
          return toCallToolResult(output);
        } catch (error) {
          return toolError(error);
        }
      };
      const config = {
        title: definition.title,
        description: definition.description,
        inputSchema: definition.input,
        outputSchema: definition.output,
        annotations: { title: definition.title, ...definition.hints },
        // Run tools and get_run link the console in the chat (issue 23, MCP Apps).
        ...(definition.background || definition.name === 'get_run' ? { _meta: CONSOLE_APP_META } : {}),
      };
      const background = definition.background ? (args: z.output<z.ZodObject<I>>): MethodInput<'runs.start'> => definition.background!(args) : undefined;
      if (tasks && background) {
        const handler = {
          createTask: (args: z.output<z.ZodObject<I>>, extra: CreateTaskRequestHandlerExtra) => createRunTask(kit.forRequest(extra), tasks, background(args), extra),
          getTask: (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTask(extra.taskId),
          getTaskResult: (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTaskResult(extra.taskId) as Promise<CallToolResult>,
          [FOREGROUND]: callback,
        };
        server.experimental.tasks.registerToolTask(definition.name, { ...config, execution: { taskSupport: 'optional' } }, handler as unknown as ToolTaskHandler<I>);
        return;
      }
      server.registerTool(definition.name, config, callback as unknown as ToolCallback<I>);
    },
  };
}
