import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallContext } from '../api/api-types';
import { SANDPIT_VERSION } from '../version';
import { NoElicitationValidator } from './no-elicitation-validator';
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

export const INSTRUCTIONS = [
  'Sandpit runs code for you in isolated sandboxes (containers without network access) on this computer.',
  'Call execute_code to run Python: variables, imports and files in /workspace persist between calls, and without session_id your own default session is used, so you rarely need create_session.',
  'The person may have prepared environments (packages, network, limits) in the Sandpit panel: list_environments shows them, and create_session environment=<id or name> starts a session from one.',
  'Build larger programs with write_file (append: true for pieces) and run them with run_file or run_command; add libraries with install_packages (check_packages first).',
  'Results include stdout, stderr, the last expression, tracebacks and pictures; files a run saves come back as sandpit://artifacts/… resource links that stay readable after the session ends.',
].join(' ');

/** The MCP server of one client connection: every tool and resource, all mapped onto the one SandpitApi. */
export function createMcpServer(deps: McpServerDeps): SandpitMcpServer {
  const server = new McpServer(
    { name: 'sandpit', title: 'Sandpit', version: SANDPIT_VERSION },
    {
      instructions: INSTRUCTIONS,
      capabilities: { tools: {}, resources: {}, logging: {} },
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
      jsonSchemaValidator: new NoElicitationValidator(),
    },
  );
  const kit = createToolKit(deps.sandpit, deps.context);
  for (const tool of TOOLS) tool.register(server, kit);
  registerResources(server, kit);
  return { server, close: () => server.close() };
}

/** The client's name from its initialize request (undefined before it). */
export function clientNameOf(mcp: SandpitMcpServer | undefined): string | undefined {
  return mcp?.server.server.getClientVersion()?.name;
}
