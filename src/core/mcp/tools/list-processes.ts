import { z } from 'zod';
import { defineTool } from '../define-tool';
import { processLine, processObject, processStructured } from './process-fields';

export const listProcesses = defineTool({
  name: 'list_processes',
  title: 'List processes',
  description:
    'Lists the processes start_process started (running, and those that ended, with why), in one session or in every session you may use.',
  input: {
    session_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Only this session (default: every session you may use).'),
  },
  output: {
    processes: z.array(processObject).describe('Oldest first'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const { processes } = await kit.call(
      'processes.list',
      args.session_id === undefined ? {} : { sessionId: args.session_id },
    );
    return {
      structured: { processes: processes.map(processStructured) },
      text:
        processes.length === 0 ? 'No processes (start one with start_process).' : processes.map(processLine).join('\n'),
    };
  },
});
