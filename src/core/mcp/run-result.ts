import type { MethodOutput } from '../../shared/api/contract';
import type { CommandOutput } from './command-output';
import { commandToolOutput } from './command-output';
import type { ToolOutput } from './tool-output';
import type { ExecutionOutput } from './execution-output';
import { executionToolOutput } from './execution-output';
import type { ToolKit } from './tool-kit';

/**
 * The result of a background run that is done, exactly as its foreground call (execute_code, run_file,
 * run_command) would have returned it; undefined while it is not done, or when it failed before it ran.
 */
export async function finishedRunOutput(answer: MethodOutput<'runs.get'>, kit: ToolKit): Promise<ToolOutput<ExecutionOutput | CommandOutput> | undefined> {
  if (answer.execution) return executionToolOutput(answer.execution, kit);
  if (answer.command) return commandToolOutput(answer.command);
  return undefined;
}
