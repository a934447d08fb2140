import { runIdSchema } from '../../../shared/domain/background-run';
import { defineTool } from '../define-tool';
import { runLine, runViewShape, toRunView } from '../run-view';

export const cancelRun = defineTool({
  name: 'cancel_run',
  title: 'Cancel a background run',
  description:
    'Stops a background run: a running one is interrupted (a command is stopped), a queued one never starts. The session and its variables stay. ' +
    'get_run then shows how it ended.',
  input: { run_id: runIdSchema },
  output: runViewShape,
  // Stops work, never deletes anything; cancelling twice is the same as once.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const run = await kit.call('runs.cancel', { runId: args.run_id });
    const done = run.state === 'done' || run.state === 'failed';
    return { structured: toRunView(run), text: done ? `Already over: ${runLine(run)}` : `Cancel asked: ${runLine(run)}` };
  },
});
