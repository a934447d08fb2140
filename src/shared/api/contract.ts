import { z } from 'zod';
import { artifactSchema, fileEntrySchema } from '../domain/artifact';
import { displaySchema, executionResultSchema, executionStatusSchema, streamNameSchema } from '../domain/execution';
import { partialLimitsSchema } from '../domain/limits';
import { languageSchema, sessionInfoSchema } from '../domain/session';

/**
 * The one declaration of every method and event Sandpit offers. IPC, HTTP (/api), REST and MCP all
 * map onto these schemas; types are inferred from them. Every method takes one input object.
 */

const sessionIdSchema = z.string().min(1).max(64).describe('Session id');

export const engineStatusSchema = z.object({
  state: z.enum(['up', 'down', 'connecting']),
  endpoint: z.string(),
  version: z.string().optional(),
  runtimes: z.array(z.string()).optional(),
  message: z.string().optional().describe('What is wrong, in plain words'),
  fix: z.string().optional().describe('How to fix it'),
});
export type EngineStatus = z.infer<typeof engineStatusSchema>;

export const methods = {
  'engine.status': {
    input: z.object({}),
    output: engineStatusSchema,
  },
  'sessions.create': {
    input: z.object({
      language: languageSchema.default('python').describe('Language of the session'),
      image: z.string().min(1).max(256).optional().describe('Executor image tag (default: the language image)'),
      limits: partialLimitsSchema.optional().describe('Overrides of the default limits'),
      client: z.string().max(128).optional().describe('Name of the client that asked for it'),
    }),
    output: sessionInfoSchema,
  },
  'sessions.list': {
    input: z.object({}),
    output: z.object({ sessions: z.array(sessionInfoSchema) }),
  },
  'sessions.get': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: sessionInfoSchema,
  },
  'sessions.stop': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: z.object({ sessionId: z.string(), stopped: z.boolean() }),
  },
  'sessions.execute': {
    input: z.object({
      sessionId: sessionIdSchema,
      code: z.string().max(1024 * 1024).describe('Source code to run'),
      timeoutMs: z.number().int().min(100).max(24 * 3_600_000).optional().describe('Timeout of this run in ms'),
    }),
    output: executionResultSchema,
  },
  'sessions.interrupt': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: z.object({ interrupted: z.boolean() }),
  },
  'files.upload': {
    input: z.object({
      sessionId: sessionIdSchema,
      path: z.string().min(1).max(4096).describe('Path relative to /workspace'),
      contentBase64: z.string().describe('File content, base64'),
    }),
    output: z.object({ path: z.string(), size: z.number().int() }),
  },
  'files.download': {
    input: z.object({ sessionId: sessionIdSchema, path: z.string().min(1).max(4096) }),
    output: z.object({ path: z.string(), size: z.number().int(), mime: z.string(), contentBase64: z.string() }),
  },
  'files.list': {
    input: z.object({ sessionId: sessionIdSchema, path: z.string().max(4096).default('') }),
    output: z.object({ path: z.string(), entries: z.array(fileEntrySchema) }),
  },
  'artifacts.list': {
    input: z.object({ sessionId: z.string().optional(), limit: z.number().int().min(1).max(10_000).default(200) }),
    output: z.object({ artifacts: z.array(artifactSchema) }),
  },
} as const;

export const events = {
  'engine.status': engineStatusSchema,
  'session.updated': sessionInfoSchema,
  'session.removed': z.object({ sessionId: z.string() }),
  'execution.started': z.object({ sessionId: z.string(), executionId: z.string(), code: z.string(), startedAt: z.string() }),
  'execution.output': z.object({ sessionId: z.string(), executionId: z.string(), stream: streamNameSchema, text: z.string() }),
  'execution.display': z.object({ sessionId: z.string(), executionId: z.string(), display: displaySchema }),
  'execution.done': z.object({
    sessionId: z.string(),
    executionId: z.string(),
    status: executionStatusSchema.or(z.literal('failed')),
    durationMs: z.number(),
    errorCode: z.string().optional(),
  }),
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<Methods[M]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.infer<Events[E]>;

export const METHOD_NAMES = Object.keys(methods) as MethodName[];
export const EVENT_NAMES = Object.keys(events) as EventName[];
