import { z } from 'zod';
import { defineTool } from '../define-tool';
import { charLimit, TOOL_INPUT_LIMITS } from '../mcp-limits';
import { formatBytes, pathField, sessionIdField } from '../tool-fields';

export const writeFile = defineTool({
  name: 'write_file',
  title: 'Write a file',
  description:
    "Creates or replaces a text file in the session's /workspace, or appends to it (append: true) so a long program can be written in pieces. Folders are created as needed. " +
    'Run it with run_file or run_command.',
  input: {
    path: pathField('Path relative to /workspace, e.g. "src/main.py".'),
    content: z
      .string()
      .max(TOOL_INPUT_LIMITS.fileContentChars)
      .describe(
        `The text to write (UTF-8), ${charLimit(TOOL_INPUT_LIMITS.fileContentChars)} per call; write a longer file in pieces with append: true.`,
      ),
    append: z.boolean().optional().describe('Add to the end of the file instead of replacing it (default false).'),
    session_id: sessionIdField,
  },
  output: {
    path: z.string().describe('The file, relative to /workspace'),
    size: z.number().int().describe('Its size in bytes after the write'),
  },
  // Replacing a file loses its old content; appending twice is not the same as once.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (args, kit) => {
    const out = await kit.call('files.write', {
      sessionId: args.session_id,
      path: args.path,
      content: args.content,
      encoding: 'utf8',
      append: args.append ?? false,
    });
    return {
      structured: { path: out.path, size: out.size },
      text: `${args.append ? 'Appended to' : 'Wrote'} /workspace/${out.path} (now ${formatBytes(out.size)}).`,
    };
  },
});
