/** An assistant as the specs play it: the MCP SDK's client over Streamable HTTP with the bearer token. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ServerInfo } from './server-info';

/** What execute_code returns in structuredContent (the fields the specs read). */
export interface ExecutionOutput {
  session_id: string;
  status: string;
  stdout: string;
  stderr?: string;
  result?: string;
  artifacts?: unknown[];
}

export interface McpAssistant {
  /** Its clientInfo.name: what Activity, approvals and the session list call it. */
  name: string;
  client: Client;
  /** execute_code as the raw tool result (isError included). */
  execute(code: string, options?: { sessionId?: string; timeoutSeconds?: number }): Promise<CallToolResult>;
  /** execute_code that must succeed as a tool call; its structured output. */
  run(code: string, options?: { sessionId?: string; timeoutSeconds?: number }): Promise<ExecutionOutput>;
  close(): Promise<void>;
}

/** Long enough for a run that waits for an approval in the panel (the SDK's default is 60 s). */
const REQUEST_TIMEOUT_MS = 110_000;

export function textOf(result: CallToolResult): string {
  return result.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** What an assistant declares beyond the basics: e.g. that it renders MCP Apps (the extension `io.modelcontextprotocol/ui`). */
export interface AssistantOptions {
  capabilities?: ClientCapabilities;
}

export async function connectAssistant(server: ServerInfo, name: string, options: AssistantOptions = {}): Promise<McpAssistant> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${server.token}` } },
  });
  const client = new Client({ name, version: '1.0.0' }, options.capabilities ? { capabilities: options.capabilities } : undefined);
  await client.connect(transport);
  const execute = async (code: string, options: { sessionId?: string; timeoutSeconds?: number } = {}): Promise<CallToolResult> => {
    const args: Record<string, unknown> = { code };
    if (options.sessionId) args.session_id = options.sessionId;
    if (options.timeoutSeconds) args.timeout_seconds = options.timeoutSeconds;
    return (await client.callTool({ name: 'execute_code', arguments: args }, undefined, {
      timeout: REQUEST_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
    })) as CallToolResult;
  };
  return {
    name,
    client,
    execute,
    run: async (code, options) => {
      const result = await execute(code, options);
      if (result.isError) throw new Error(`execute_code failed as a tool call: ${textOf(result)}`);
      return result.structuredContent as unknown as ExecutionOutput;
    },
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** Opens assistants for one test and closes them all after it. */
export interface AssistantFactory {
  connect(name: string, options?: AssistantOptions): Promise<McpAssistant>;
}

export function assistantPool(server: ServerInfo): AssistantFactory & { closeAll(): Promise<void> } {
  const open: McpAssistant[] = [];
  return {
    connect: async (name, options) => {
      const assistant = await connectAssistant(server, name, options);
      open.push(assistant);
      return assistant;
    },
    closeAll: async () => {
      await Promise.all(open.splice(0).map((a) => a.close()));
    },
  };
}
