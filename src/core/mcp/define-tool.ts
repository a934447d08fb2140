import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { toErrorBody } from '../../shared/api/errors';
import type { ToolExtra } from './tool-extra';
import type { ToolKit } from './tool-kit';

/** All four hints, always set: clients decide on confirmations from them. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool returns: the structured result (checked against `output`), the text a model reads, extra content. */
export interface ToolOutput<O> {
  structured: O;
  text: string;
  content?: ContentBlock[];
}

export interface ToolDefinition<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  hints: ToolHints;
  run(args: z.output<z.ZodObject<I>>, kit: ToolKit, extra: ToolExtra): Promise<ToolOutput<z.input<z.ZodObject<O>>>>;
}

/** A tool with its types erased, ready to be registered on a server. */
export interface SandpitTool {
  name: string;
  register(server: McpServer, kit: ToolKit): void;
}

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
    register: (server, kit) => {
      const callback = async (args: z.output<z.ZodObject<I>>, extra: ToolExtra): Promise<CallToolResult> => {
        try {
          const output = await definition.run(args, kit.forRequest(extra), extra);
          return {
            content: [{ type: 'text', text: output.text }, ...(output.content ?? [])],
            structuredContent: output.structured,
          };
        } catch (error) {
          return toolError(error);
        }
      };
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema: definition.input,
          outputSchema: definition.output,
          annotations: { title: definition.title, ...definition.hints },
        },
        callback as unknown as ToolCallback<I>,
      );
    },
  };
}
