import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** What a tool returns: the structured result (checked against `output`), the text a model reads, extra content. */
export interface ToolOutput<O> {
  structured: O;
  text: string;
  content?: ContentBlock[];
}
