import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallContext } from '../api/api-types';
import { canAskInChat, chatAsker, FirstRequest } from './chat-approval';
import { NoElicitationValidator } from './no-elicitation-validator';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from './server-identity';
import { registerResources } from './resources';
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
  const server = new McpServer(
    { ...SERVER_INFO },
    {
      instructions: INSTRUCTIONS,
      capabilities: { tools: { ...SERVER_CAPABILITIES.tools }, resources: { ...SERVER_CAPABILITIES.resources }, logging: {} },
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
      jsonSchemaValidator: new NoElicitationValidator(),
    },
  );
  // Approvals in the chat: asked only of a client that declared form elicitation (checked per call).
  const firstRequest = new FirstRequest();
  const kit = createToolKit(
    deps.sandpit,
    deps.context,
    (extra) => (canAskInChat(server.server.getClientCapabilities()) ? chatAsker(extra, firstRequest) : undefined),
    // A run that made files: the client's resource list (artifacts) changed.
    () => {
      if (server.isConnected()) server.sendResourceListChanged();
    },
  );
  for (const tool of TOOLS) tool.register(server, kit);
  registerResources(server, kit);
  return { server, close: () => server.close() };
}

/** The client's name from its initialize request (undefined before it). */
export function clientNameOf(mcp: SandpitMcpServer | undefined): string | undefined {
  return mcp?.server.server.getClientVersion()?.name;
}
