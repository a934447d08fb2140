import { z } from 'zod';
import type { ExecutionResult } from '../../shared/domain/execution';
import { executionStatusSchema } from '../../shared/domain/execution';
import { artifactLinkSchema, imageContents, resourceLink, toArtifactLink } from './artifact-content';
import { consoleTables, tablesMeta } from './console-tables';
import type { ToolOutput } from './tool-output';
import { formatBytes, formatDuration } from './tool-fields';
import type { ToolKit } from './tool-kit';

/** What execute_code and run_file return (snake_case view of the contract's ExecutionResult). */
export const executionOutputShape = {
  status: executionStatusSchema.describe('ok | error (the code raised) | timeout | interrupted | oom | killed'),
  session_id: z.string().describe('Session the code ran in'),
  execution_id: z.string().describe('Id of this run'),
  stdout: z.string().describe('Printed output'),
  stderr: z.string().describe('Error output (warnings, logging)'),
  result: z.string().optional().describe('repr of the value of the last expression, if any'),
  error: z
    .object({ name: z.string(), value: z.string(), traceback: z.string() })
    .optional()
    .describe('The exception the code raised (status "error")'),
  duration_ms: z.number().describe('How long the run took'),
  truncated: z
    .object({ stdout: z.boolean(), stderr: z.boolean() })
    .describe('Whether output was cut at the session limit'),
  state_lost: z.boolean().describe('true when the variables are gone: the sandbox was restarted (files kept), or the session was stopped (status "killed": nothing kept; see message)'),
  message: z.string().optional().describe('Plain-language note on timeouts, memory, restarts'),
  artifacts: z.array(artifactLinkSchema).describe('Files the run created or changed, kept after the session ends'),
};
export type ExecutionOutput = z.infer<z.ZodObject<typeof executionOutputShape>>;

export function toExecutionOutput(result: ExecutionResult): ExecutionOutput {
  return {
    status: result.status,
    session_id: result.sessionId,
    execution_id: result.executionId,
    stdout: result.stdout,
    stderr: result.stderr,
    ...(result.result === undefined ? {} : { result: result.result }),
    ...(result.error === undefined ? {} : { error: result.error }),
    duration_ms: result.durationMs,
    truncated: result.truncated,
    state_lost: result.stateLost,
    ...(result.message === undefined ? {} : { message: result.message }),
    artifacts: result.artifacts.map(toArtifactLink),
  };
}

function section(label: string, text: string): string | undefined {
  if (text === '') return undefined;
  return `${label}:\n${text.endsWith('\n') ? text.slice(0, -1) : text}`;
}

/** The concise text a model reads: a status line, then only the parts that have something in them. */
export function executionText(result: ExecutionResult): string {
  const status = `${result.status} in ${formatDuration(result.durationMs)} (session ${result.sessionId})`;
  const error = result.error
    ? result.error.traceback.trim() !== ''
      ? result.error.traceback
      : `${result.error.name}: ${result.error.value}`
    : '';
  const files = result.artifacts
    .map((a) => `- ${a.path} (${a.mime}, ${formatBytes(a.size)}) sandpit://artifacts/${a.sha256}`)
    .join('\n');
  const parts = [
    status,
    section('stdout', result.stdout),
    section('stderr', result.stderr),
    result.result === undefined ? undefined : `result: ${result.result}`,
    section('error', error),
    result.message ? `note: ${result.message}` : undefined,
    section('files', files),
  ].filter((part): part is string => part !== undefined);
  if (parts.length === 1 && result.status === 'ok') parts.push('(no output)');
  return parts.join('\n');
}

/** A finished run as a tool result: text, structured output, inline pictures and a link per saved file. */
/**
 * Said after a run whose session has folders shared with "Changes need my OK" and changes pending in them
 * ('' otherwise): they are not in the person's folder until the person applies them.
 */
async function reviewNotice(sessionId: string, kit: ToolKit): Promise<string> {
  const listed = await kit.call('changes.list', { sessionId }).catch(() => undefined);
  const pending = listed?.folders.reduce((n, f) => n + f.changes.length, 0) ?? 0;
  if (pending === 0) return '';
  const where = listed!.folders.filter((f) => f.changes.length > 0).map((f) => f.mountPath).join(', ');
  return `\n\n${pending} change${pending === 1 ? '' : 's'} in ${where} wait${pending === 1 ? 's' : ''} for the person's OK in Sandpit: they are not in the person's folder until the person applies them (list_changes shows them).`;
}

export async function executionToolOutput(result: ExecutionResult, kit: ToolKit): Promise<ToolOutput<ExecutionOutput>> {
  kit.artifacts.remember(result.artifacts);
  const readArtifact = async (sha256: string): Promise<Buffer> =>
    Buffer.from((await kit.call('artifacts.read', { sha256 })).contentBase64, 'base64');
  const images = await imageContents(result.displays, result.artifacts, readArtifact).catch(() => []);
  const review = await reviewNotice(result.sessionId, kit);
  // The console in the chat shows the run's tables sorted: only for a client that renders it.
  const meta = kit.rendersApps() ? tablesMeta(await consoleTables(result, readArtifact).catch(() => [])) : undefined;
  return {
    structured: toExecutionOutput(result),
    text: executionText(result) + review,
    content: [...images, ...result.artifacts.map(resourceLink)],
    ...(meta ? { meta } : {}),
  };
}
