import { defineTool } from '../define-tool';
import { processIdSchema } from '../../../shared/domain/process';
import { processFields, processLine, processStructured } from './process-fields';

export const stopProcess = defineTool({
  name: 'stop_process',
  title: 'Stop a process',
  description:
    'Stops a process from start_process (SIGTERM, then SIGKILL after 3 seconds) and everything it started. Its output stays readable.',
  input: { process_id: processIdSchema },
  output: processFields,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const p = await kit.call('processes.stop', { processId: args.process_id });
    return { structured: processStructured(p), text: processLine(p) };
  },
});
