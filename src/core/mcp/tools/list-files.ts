import { z } from 'zod';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { formatBytes, sessionIdField } from '../tool-fields';

export const listFiles = defineTool({
  name: 'list_files',
  title: 'List files',
  description: "Lists the files and folders in the session's /workspace (or a folder in it), with sizes.",
  input: {
    path: z
      .string()
      .max(TOOL_INPUT_LIMITS.pathChars)
      .optional()
      .describe(
        `Folder relative to /workspace (default: /workspace itself), ${charLimit(TOOL_INPUT_LIMITS.pathChars)}.`,
      ),
    session_id: sessionIdField,
  },
  output: {
    path: z.string().describe('The folder listed, relative to /workspace'),
    entries: z
      .array(
        z.object({
          path: z.string().describe('Relative to /workspace'),
          type: z.enum(['file', 'directory', 'symlink', 'other']).describe('Kind of entry'),
          size: z.number().int().describe('Size in bytes'),
          modified: z.string().optional().describe('Last change (ISO 8601)'),
        }),
      )
      .describe('What is in it'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const listing = await kit.call('files.list', { sessionId: args.session_id, path: args.path ?? '' });
    const entries = listing.entries.map((e) => ({
      path: e.path,
      type: e.type,
      size: e.size,
      ...(e.modifiedAt ? { modified: e.modifiedAt } : {}),
    }));
    const where = `/workspace${listing.path ? `/${listing.path}` : ''}`;
    const text =
      entries.length === 0
        ? `${where} is empty.`
        : [
            `${where}:`,
            ...entries.map((e) =>
              e.type === 'directory' ? `${e.path}/` : `${e.path}  ${e.type === 'file' ? formatBytes(e.size) : e.type}`,
            ),
          ].join('\n');
    return { structured: { path: listing.path, entries }, text };
  },
});
