import { z } from 'zod';

/** Agent protocol v1 (executor-image/agents/PROTOCOL.md). Everything from the agent is untrusted and validated. */
export const PROTOCOL_VERSION = 1;

/** Why a file operation failed, as the agent says it. */
export const FS_ERROR_CODES = ['NOT_FOUND', 'NOT_A_FILE', 'NOT_A_DIRECTORY', 'LINK', 'TOO_LARGE', 'INVALID_PATH', 'NO_SPACE', 'DENIED', 'IO'] as const;
export type FsErrorCode = (typeof FS_ERROR_CODES)[number];

export const agentMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    id: z.string(),
    language: z.string(),
    version: z.string(),
    pid: z.number(),
    protocol: z.number(),
    /** What the agent can do beyond the base protocol: `pipe` (the fs operation). */
    features: z.array(z.string().max(40)).max(20).optional(),
  }),
  z.object({ type: z.literal('stream'), id: z.string(), name: z.enum(['stdout', 'stderr']), text: z.string() }),
  z.object({ type: z.literal('display'), id: z.string(), mime: z.string().max(200), data: z.string(), encoding: z.enum(['base64', 'utf8']) }),
  z.object({ type: z.literal('result'), id: z.string(), text: z.string() }),
  z.object({ type: z.literal('error'), id: z.string(), name: z.string(), value: z.string(), traceback: z.string() }),
  z.object({
    type: z.literal('done'),
    id: z.string(),
    status: z.enum(['ok', 'error', 'interrupted']),
    durationMs: z.number(),
    dropped: z.object({ stdout: z.number(), stderr: z.number() }).partial().optional(),
    files: z.array(z.object({ path: z.string(), size: z.number() })).max(10_000).optional(),
    filesTruncated: z.boolean().optional(),
    straysKilled: z.number().optional(),
    exitCode: z.number().int().optional(),
    /** Processes the kernel killed for memory during the run (from the container's memory cgroup). */
    oomKills: z.number().int().nonnegative().optional(),
  }),
  // File operations in the workspace, done by the agent as the sandbox user (never following a link).
  z.object({ type: z.literal('fs-data'), id: z.string(), data: z.string() }),
  z.object({ type: z.literal('fs-done'), id: z.string(), size: z.number().int().nonnegative() }),
  z.object({
    type: z.literal('fs-list'),
    id: z.string(),
    entries: z
      .array(z.object({ name: z.string().min(1).max(1024), type: z.enum(['file', 'directory', 'symlink', 'other']), size: z.number().nonnegative(), mtime: z.number() }))
      .max(10_000),
    truncated: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('fs-usage'),
    id: z.string(),
    usedBytes: z.number().nonnegative(),
    totalBytes: z.number().nonnegative(),
    freeBytes: z.number().nonnegative(),
    fileBytes: z.number().nonnegative(),
  }),
  z.object({ type: z.literal('fs-error'), id: z.string(), code: z.enum(FS_ERROR_CODES), message: z.string().max(4_000) }),
  // pipe: the program ended (its exit code, negative for a signal), with the start of its stderr.
  z.object({ type: z.literal('fs-exit'), id: z.string(), exitCode: z.number().int(), stderr: z.string().max(1024 * 1024) }),
  z.object({ type: z.literal('reaped'), id: z.string(), killed: z.number().int().nonnegative() }),
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;
export type DoneMessage = Extract<AgentMessage, { type: 'done' }>;

/** What the host sends (checked against executor-image/agents/protocol.json like the agent's messages). */
export const hostMessageSchema = z.union([
  z.object({ type: z.literal('hello'), id: z.string() }),
  z.object({ type: z.literal('execute'), id: z.string(), code: z.string(), outputLimit: z.number() }),
  z.object({ type: z.literal('interrupt'), id: z.string() }),
  z.object({ type: z.literal('fs'), id: z.string(), op: z.literal('read'), path: z.string(), maxBytes: z.number() }),
  z.object({ type: z.literal('fs'), id: z.string(), op: z.literal('list'), path: z.string() }),
  z.object({ type: z.literal('fs'), id: z.string(), op: z.literal('write'), path: z.string(), append: z.boolean(), data: z.string(), last: z.boolean() }),
  z.object({ type: z.literal('fs'), id: z.string(), op: z.literal('usage') }),
  z.object({
    type: z.literal('fs'),
    id: z.string(),
    op: z.literal('pipe'),
    argv: z.array(z.string()),
    socket: z.string(),
    token: z.string(),
    stdin: z.boolean(),
    stdout: z.boolean(),
    maxStderr: z.number(),
  }),
  z.object({ type: z.literal('reap'), id: z.string() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** A message that answers a request other than an execution (file operations, reaping). */
export type RequestReply = Extract<AgentMessage, { type: 'fs-data' | 'fs-done' | 'fs-list' | 'fs-usage' | 'fs-error' | 'fs-exit' | 'reaped' }>;

export function isRequestReply(message: AgentMessage): message is RequestReply {
  return message.type.startsWith('fs-') || message.type === 'reaped';
}

/** Longest line the host accepts from an agent before it declares the channel broken. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

export function encodeHostMessage(message: HostMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line.
 * Returns a push function; calls `onLine` for each complete line and `onOverflow` once if a line is too long.
 */
export function createLineSplitter(onLine: (line: string) => void, onOverflow: () => void, maxLineBytes = MAX_LINE_BYTES): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  const overflow = (): void => {
    overflowed = true;
    parts = [];
    onOverflow();
  };
  return (chunk: Buffer): void => {
    if (overflowed) return;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (size + (nl - start) > maxLineBytes) return overflow();
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString('utf8');
      parts = [];
      size = 0;
      start = nl + 1;
      if (line.length > 0) onLine(line);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      size += rest.length;
      if (size > maxLineBytes) return overflow();
      parts.push(Buffer.from(rest));
    }
  };
}

export function parseAgentLine(line: string): AgentMessage | undefined {
  try {
    const parsed = agentMessageSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
