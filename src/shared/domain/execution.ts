import { z } from 'zod';
import { artifactSchema } from './artifact';

export const EXECUTION_STATUSES = ['ok', 'error', 'timeout', 'interrupted', 'oom', 'killed'] as const;
export const executionStatusSchema = z.enum(EXECUTION_STATUSES);
export type ExecutionStatus = z.infer<typeof executionStatusSchema>;

/** Who stopped a session while it ran code (the run then ends "killed", and the session is gone). */
export const STOPPED_BY = ['person', 'assistant', 'sandpit'] as const;
export const stopCauseSchema = z.object({
  by: z.enum(STOPPED_BY),
  name: z.string().optional().describe("The assistant's name, when an assistant stopped it"),
  why: z.string().optional().describe('Why Sandpit stopped it (it was quitting, the Docker engine changed)'),
});
export type StopCause = z.infer<typeof stopCauseSchema>;

export const streamNameSchema = z.enum(['stdout', 'stderr']);
export type StreamName = z.infer<typeof streamNameSchema>;

export const displaySchema = z.object({
  mime: z.string(),
  data: z.string().describe('base64 for binary mime types, text otherwise'),
  encoding: z.enum(['base64', 'utf8']),
});
export type Display = z.infer<typeof displaySchema>;

export const executionErrorSchema = z.object({
  name: z.string(),
  value: z.string(),
  traceback: z.string(),
});
export type ExecutionError = z.infer<typeof executionErrorSchema>;

export const executionResultSchema = z.object({
  executionId: z.string(),
  sessionId: z.string(),
  status: executionStatusSchema,
  stdout: z.string(),
  stderr: z.string(),
  result: z.string().optional().describe('repr of the last expression'),
  error: executionErrorSchema.optional(),
  displays: z.array(displaySchema),
  truncated: z.object({ stdout: z.boolean(), stderr: z.boolean() }),
  durationMs: z.number(),
  exitCode: z.number().int().optional(),
  files: z.array(z.object({ path: z.string(), size: z.number().int() })),
  artifacts: z.array(artifactSchema),
  stateLost: z.boolean().describe('true when the variables are gone: the container was restarted, or the session was stopped (status "killed")'),
  message: z.string().optional().describe('plain-language note on timeouts, OOM, restarts'),
  stoppedBy: stopCauseSchema.optional().describe('Set when the session was stopped during the run (status "killed")'),
  auditId: z.number().int().optional().describe('Row of this call in the audit log'),
});
export type ExecutionResult = z.infer<typeof executionResultSchema>;

/** The end of a run, as every surface hears it (execution.done): what the caller received beyond the streamed output, so every run shows it, whoever started it. */
export const executionDoneSchema = z.object({
  sessionId: z.string(),
  executionId: z.string(),
  status: executionStatusSchema.or(z.literal('failed')),
  durationMs: z.number(),
  errorCode: z.string().optional(),
  result: z.string().optional().describe('repr of the value of the last expression'),
  error: executionErrorSchema.optional().describe('The exception the code raised, with its traceback'),
  message: z.string().optional().describe("Sandpit's note (time limit, memory, restart, resume), or why the run could not run"),
  truncated: z.boolean().optional().describe('The output was cut at the session limit'),
  stoppedBy: stopCauseSchema.optional().describe('Who stopped the session during the run (status "killed")'),
});
