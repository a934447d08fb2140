/** An SDK client on a spawned stdio MCP server (`sandpit mcp`, or the trivial reference server), timed. */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { now } from './harness';

export const SANDPIT_BIN = resolve(__dirname, '..', 'bin', 'sandpit.mjs');
/** `node` arguments that run the trivial reference server (TypeScript, through tsx's loader). */
export const TRIVIAL_SERVER_ARGS = ['--import', 'tsx', resolve(__dirname, 'trivial-mcp-server.ts')];
export const CALL_TIMEOUT_MS = 120_000;
/** How long a server told to close (its stdin ended) has to end by itself before the SDK's close signals it. */
const EXIT_WAIT_MS = 60_000;

export interface Spawned {
  client: Client;
  /** The server process (for its CPU time). */
  pid: number;
  close(): Promise<void>;
}

/** Spawns `node ARGS` with `env` added and connects (spawn → `initialize` answered, timed). */
export async function spawnStdio(args: string[], env: Record<string, string> = {}): Promise<{ spawned: Spawned; ms: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...(process.env as Record<string, string>), SANDPIT_LOG: 'error', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-stdio', version: '1' });
  const t0 = now();
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  const ms = now() - t0;
  const pid = transport.pid;
  if (pid === null) throw new Error(`node ${args.join(' ')} has no process id after connecting`);
  return { ms, spawned: { client, pid, close: () => closeAndWait(client, transport) } };
}

/**
 * Closes the client once the server has ended by itself. The SDK's close ends the server's stdin, signals it after
 * 2 s and kills it 2 s later: a `sandpit mcp` removing a dozen warm sandboxes on 2 cores takes longer, and one
 * killed half-way leaves loop devices attached to disks in its data folder, which the bench then removes.
 */
async function closeAndWait(client: Client, transport: StdioClientTransport): Promise<void> {
  // The SDK keeps the child process to itself.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (child && child.exitCode === null && child.signalCode === null) {
    const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, EXIT_WAIT_MS)))]);
    clearTimeout(timer);
  }
  await client.close().catch(() => undefined);
}

/**
 * A fresh `sandpit mcp` on the data folder `home` (it hosts its own core). It leaves no warm sandboxes when it quits
 * (SANDPIT_HANDOVER_SECONDS=0: the bench's data folders are thrown away, and what is left would run beside the next
 * measurement) unless `handOver` says it leaves them for the next one, as it does for an assistant.
 */
export function spawnSandpitMcp(home: string, handOver = false): Promise<{ spawned: Spawned; ms: number }> {
  return spawnStdio([SANDPIT_BIN, 'mcp'], { SANDPIT_HOME: home, ...(handOver ? {} : { SANDPIT_HANDOVER_SECONDS: '0' }) });
}

/** `execute_code` of `code`, checked to give `expected`; returns the milliseconds it took. */
export async function execute(client: Client, code: string, language: 'python' | 'javascript', expected: string): Promise<number> {
  const t0 = now();
  const result = (await client.callTool({ name: 'execute_code', arguments: { code, language } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
  const ms = now() - t0;
  const got = (result.structuredContent as { result?: string } | undefined)?.result;
  if (result.isError || got !== expected) throw new Error(`execute_code ${language} gave ${JSON.stringify(result.content)}`);
  return ms;
}

/** CPU time (user + system, every thread) a process has used so far, in milliseconds (Linux /proc). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
