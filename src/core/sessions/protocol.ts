import { z } from 'zod';

/** Agent protocol v1 (executor-image/agents/PROTOCOL.md). Everything from the agent is untrusted and validated. */
export const PROTOCOL_VERSION = 1;

export const agentMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), id: z.string(), language: z.string(), version: z.string(), pid: z.number(), protocol: z.number() }),
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
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;
export type DoneMessage = Extract<AgentMessage, { type: 'done' }>;

export type HostMessage =
  | { type: 'hello'; id: string }
  | { type: 'execute'; id: string; code: string; outputLimit: number }
  | { type: 'interrupt'; id: string };

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
