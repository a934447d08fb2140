import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FOREGROUND } from './define-tool';
import { RunTaskStore } from './run-task-store';
import type { ToolExtra } from './tool-extra';
import type { CallContext } from '../api/api-types';
import { canAskInChat, chatAsker, FirstRequest } from './chat-approval';
import { NoElicitationValidator } from './no-elicitation-validator';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from './server-identity';
import { registerResources } from './resources';
import { rememberToolList } from './remember-tool-list';
import { rendersApps } from './console-app';
import { createToolKit } from './tool-kit';
import type { McpSandpit } from './tool-kit';
import { TOOLS } from './tools/index';

export interface McpServerDeps {
  sandpit: McpSandpit;
  /** Who is calling, asked on every call: transport, client name (known after initialize), principal. */
  context: () => CallContext;
}

export interface SandpitMcpServer {
  server: McpServer;
  close(): Promise<void>;
}

/** Largest number of array elements and object members one tools/call may carry. */
const MAX_TOOL_INPUT_ELEMENTS = 1_000;


/** The MCP server of one client connection: every tool and resource, all mapped onto the one SandpitApi. */
export function createMcpServer(deps: McpServerDeps): SandpitMcpServer {
  // Approvals in the chat: asked only of a client that declared form elicitation (checked per call).
  const firstRequest = new FirstRequest();
  // The closures read `server` when a call runs, after it is made below.
  const kit = createToolKit(
    deps.sandpit,
    deps.context,
    (extra) => (canAskInChat(server.server.getClientCapabilities()) ? chatAsker(extra, firstRequest) : undefined),
    // A run that made files: the client's resource list (artifacts) changed.
    () => {
      if (server.isConnected()) server.sendResourceListChanged();
    },
    // The console in the chat (MCP Apps): a client that renders it gets a run's tables with its result.
    () => rendersApps(server.server.getClientCapabilities()),
  );
  // MCP Tasks (issue 23): each task of this client is backed by a background run.
  const tasks = new RunTaskStore(kit);
  const server = new McpServer(
    { ...SERVER_INFO },
    {
      instructions: INSTRUCTIONS,
      capabilities: { tools: { ...SERVER_CAPABILITIES.tools }, resources: { ...SERVER_CAPABILITIES.resources }, logging: {}, tasks: structuredClone(SERVER_CAPABILITIES.tasks) },
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
      taskStore: tasks,
      jsonSchemaValidator: new NoElicitationValidator(),
    },
  );
  keepForegroundCalls(server);
  for (const tool of TOOLS) tool.register(server, kit, tasks);
  rememberToolList(server);
  registerResources(server, kit);
  return {
    server,
    close: async () => {
      tasks.close();
      await server.close();
    },
  };
}

interface TaskToolInternals {
  handleAutomaticTaskPolling(tool: RegisteredTool, request: CallToolRequest, extra: ToolExtra): Promise<CallToolResult>;
  validateToolInput(tool: RegisteredTool, args: unknown, name: string): Promise<unknown>;
  validateToolOutput(tool: RegisteredTool, result: CallToolResult, name: string): Promise<void>;
}

/**
 * A run tool is a task tool (taskSupport "optional"), and the SDK answers its calls without task augmentation by
 * making a task and polling it. Sandpit answers those as it always did instead — the foreground call, with its progress
 * and its cancel — so a client without task support sees no change. (The SDK's own hook for that path, overridden.)
 */
function keepForegroundCalls(server: McpServer): void {
  const internals = server as unknown as TaskToolInternals;
  internals.handleAutomaticTaskPolling = async (tool, request, extra) => {
    const foreground = (tool.handler as unknown as { [FOREGROUND]?: (args: unknown, extra: ToolExtra) => Promise<CallToolResult> })[FOREGROUND];
    if (!foreground) throw new Error(`Tool ${request.params.name} has no foreground form.`);
    const args = await internals.validateToolInput(tool, request.params.arguments, request.params.name);
    const result = await foreground(args, extra);
    await internals.validateToolOutput(tool, result, request.params.name);
    return result;
  };
}

/** The client's name from its initialize request (undefined before it). */
export function clientNameOf(mcp: SandpitMcpServer | undefined): string | undefined {
  return mcp?.server.server.getClientVersion()?.name;
}
