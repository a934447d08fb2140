import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil, withTimeout } from '../core/util/with-timeout';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `sandpit mcp` as an assistant starts it: the bundle in out/cli when built and fresh, else the sources. */
export const SANDPIT_MCP_ARGS = [join(ROOT, 'bin/sandpit.mjs'), 'mcp'];
export const REPO_ROOT = ROOT;

/** What a JSON-RPC answer on stdout looks like (requests and notifications from the server too). */
export interface RpcLine {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The environment of a spawned `sandpit mcp`: its own SANDPIT_HOME and nothing secret. */
export function mcpChildEnv(home: string): Record<string, string> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'info' };
  for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR']) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return env;
}

/**
 * `sandpit mcp` on raw pipes, for what an SDK client would never send (garbage, broken lines) and for
 * watching the process itself end when stdin is closed.
 */
export class RawMcpStdio {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every line read on stdout, parsed. */
  readonly lines: RpcLine[] = [];
  /** Lines on stdout that were not JSON: there must never be any. */
  readonly notJson: string[] = [];
  private pending = '';
  private stderrText = '';
  private readonly exited: Promise<number | null>;

  constructor(home: string) {
    this.child = spawn(process.execPath, SANDPIT_MCP_ARGS, { cwd: ROOT, env: mcpChildEnv(home), stdio: 'pipe' });
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
      let newline = this.pending.indexOf('\n');
      while (newline !== -1) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        try {
          this.lines.push(JSON.parse(line) as RpcLine);
        } catch {
          this.notJson.push(line.slice(0, 200));
        }
        newline = this.pending.indexOf('\n');
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8');
    });
    // A write after the child died must not crash the test runner.
    this.child.stdin.on('error', () => undefined);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Writes bytes as they are, honouring backpressure. */
  async write(data: string | Buffer): Promise<void> {
    if (!this.child.stdin.write(data)) {
      await withTimeout(once(this.child.stdin, 'drain'), 60_000, 'sandpit mcp to read its stdin');
    }
  }

  /** Writes `size` bytes of `filler` without a newline, in 1 MiB pieces. */
  async writeFiller(size: number, filler = 'z'): Promise<void> {
    const piece = filler.repeat(1024 * 1024);
    for (let left = size; left > 0; left -= piece.length)
      await this.write(left >= piece.length ? piece : piece.slice(0, left));
  }

  send(message: Record<string, unknown>): Promise<void> {
    return this.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** The answer with this id (waits for it). */
  answer(id: string | number | null, timeoutMs = 60_000, from = 0): Promise<RpcLine> {
    return pollUntil(
      () => this.lines.slice(from).find((l) => l.id === id && (l.result !== undefined || l.error !== undefined)),
      timeoutMs,
      `the answer to request ${String(id)} (stderr: ${this.stderrText.slice(-2_000)})`,
      25,
    );
  }

  async request(
    id: number,
    method: string,
    params: Record<string, unknown> = {},
    timeoutMs = 60_000,
  ): Promise<RpcLine> {
    const from = this.lines.length;
    await this.send({ id, method, params });
    return this.answer(id, timeoutMs, from);
  }

  /** initialize + initialized, as a client starts. */
  async initialize(name = 'raw-stdio-test'): Promise<RpcLine> {
    const answer = await this.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name, version: '0' },
    });
    await this.send({ method: 'notifications/initialized' });
    return answer;
  }

  /** Ends stdin as a client that goes away does; resolves with the exit code and how long the exit took. */
  async closeStdin(timeoutMs: number): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    this.child.stdin.end();
    const code = await this.waitForExit(timeoutMs);
    return { code, ms: Date.now() - started };
  }

  /** The exit code, once the process has exited (a failure after `timeoutMs`). */
  waitForExit(timeoutMs: number): Promise<number | null> {
    return withTimeout(this.exited, timeoutMs, 'sandpit mcp to exit');
  }

  /** Last resort for a test that failed half-way. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
