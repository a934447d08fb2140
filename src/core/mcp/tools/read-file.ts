import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isInlineImageMime, MAX_INLINE_IMAGE_BYTES } from '../artifact-content';
import { defineTool } from '../define-tool';
import { formatBytes, pathField, sessionIdField } from '../tool-fields';

export const readFile = defineTool({
  name: 'read_file',
  title: 'Read a file',
  description:
    "Reads a file from the session's /workspace. Text comes back as text; binary files as base64 (pictures are also shown as images).",
  input: {
    path: pathField('Path relative to /workspace, e.g. "results.csv".'),
    session_id: sessionIdField,
  },
  output: {
    path: z.string().describe('The file, relative to /workspace'),
    size: z.number().int().describe('Size in bytes'),
    mime: z.string().describe('Detected MIME type'),
    encoding: z.enum(['utf8', 'base64']).describe('utf8 for text, base64 for binary content'),
    content: z.string().describe('The content, in that encoding'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const file = await kit.call('files.read', { sessionId: args.session_id, path: args.path });
    const extra: ContentBlock[] =
      file.encoding === 'base64' && isInlineImageMime(file.mime) && file.size <= MAX_INLINE_IMAGE_BYTES
        ? [{ type: 'image', data: file.content, mimeType: file.mime }]
        : [];
    const text =
      file.encoding === 'utf8'
        ? file.content
        : `Binary file /workspace/${file.path} (${file.mime}, ${formatBytes(file.size)}), base64:\n${file.content}`;
    return { structured: file, text, content: extra };
  },
});
