import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** What a tool returns: the structured result (checked against `output`), the text a model reads, extra content. */
export interface ToolOutput<O> {
  structured: O;
  text: string;
  content?: ContentBlock[];
  /** The result's `_meta`: what a host hands to an app and not to the model (the console's tables). */
  meta?: Record<string, unknown>;
}

/** A tool's output as the MCP result: the text first, then the other content, the structured result, the `_meta`. */
export function toCallToolResult(output: ToolOutput<unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: output.text }, ...(output.content ?? [])],
    structuredContent: output.structured as Record<string, unknown>,
    ...(output.meta ? { _meta: output.meta } : {}),
  };
}
