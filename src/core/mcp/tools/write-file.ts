import { z } from 'zod';
import { defineTool } from '../define-tool';
import { formatBytes, sessionIdField } from '../tool-fields';

export const writeFile = defineTool({
  name: 'write_file',
  title: 'Write a file',
  description:
    "Creates or replaces a text file in the session's /workspace, or appends to it (append: true) so a long program can be written in pieces. Folders are created as needed. " +
    'Run it with run_file or run_command.',
  input: {
    path: z.string().min(1).max(4096).describe('Path relative to /workspace, e.g. "src/main.py".'),
    content: z
      .string()
      .max(16 * 1024 * 1024)
      .describe('The text to write (UTF-8).'),
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
