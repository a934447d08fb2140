import { PassThrough } from 'node:stream';
import { SandpitError } from '../shared/api/errors';
import type { ChannelKind } from '../shared/domain/session';
import { LineChannel } from '../core/sandbox/agent-channel';
import type { AgentChannel } from '../core/sandbox/agent-channel';
import type { HostMessage } from '../core/sandbox/protocol';
import type {
  BackendEndpoint,
  EngineInfo,
  HelperSpec,
  ReopenOptions,
  Sandbox,
  SandboxBackend,
  SandboxExecOptions,
  SandboxExecResult,
  SandboxFolder,
  SandboxRecord,
  SandboxSpec,
  SandboxState,
  SandboxStats,
} from '../core/sandbox/sandbox-backend';
import { packFiles } from '../core/files/safe-tar';
import { walkTar } from '../core/files/tar-walk';
import { pollUntil } from '../core/util/with-timeout';

/** What the scripted agent of a sandbox does with a request; `reply` writes one JSON line to the host. */
export type MemoryAgent = (message: HostMessage, reply: (message: Record<string, unknown>) => void, spec: SandboxSpec) => void;

/** Answers hello as the language its sandbox was made for and finishes every execution at once with `ok`. */
export const promptMemoryAgent: MemoryAgent = (message, reply, spec) => {
  if (message.type === 'hello') reply({ type: 'hello', id: message.id, language: spec.language, version: '0', pid: 1, protocol: 1 });
  if (message.type === 'execute') reply({ type: 'done', id: message.id, status: 'ok', durationMs: 1 });
};

/** A program the test lets sandboxes run (the in-memory backend runs no real program); undefined: not found. */
export type MemoryProgram = (argv: string[], options: SandboxExecOptions, sandbox: MemorySandbox) => SandboxExecResult | undefined;

/**
 * A SandboxBackend in memory, for unit tests of what stands on the port (sessions, the warm pool): sandboxes
 * whose agent is a script speaking the protocol on a real channel, a package store of regular files read and
 * written as tar, stats from the limits, kills and memory kills on demand. It runs no program of its own:
 * `programs` says what exec and helpers answer. Every call is counted in `calls` by its port name.
 */
export class MemoryBackend implements SandboxBackend {
  endpoint: BackendEndpoint = { kind: 'local', address: 'memory' };
  /** What ping answers while the engine is up. */
  info: EngineInfo = { product: 'docker', version: 'memory', apiVersion: '1.47', os: 'linux', runtimes: ['runc'] };
  readonly channel: ChannelKind = 'attach';
  /** Live sandboxes by session id (what a reaper would find), each owned by `instanceId`. */
  readonly sandboxes = new Map<string, MemorySandbox>();
  readonly calls: string[] = [];
  agent: MemoryAgent = promptMemoryAgent;
  programs: MemoryProgram = () => undefined;
  /** Port calls replaced by the test (a stuck kill, an engine that stops answering); they win over the sandbox's own. */
  readonly override: Partial<Pick<Sandbox, 'kill' | 'state' | 'start'>> = {};
  /** When set, ping fails with it (the engine is down). */
  down: SandpitError | undefined;
  private readonly lostListeners: Array<() => void> = [];
  private created = 0;

  constructor(readonly instanceId = 'memory-instance') {}

  async ping(): Promise<EngineInfo> {
    this.calls.push('ping');
    if (this.down) throw this.down;
    return this.info;
  }

  fixHint(): string {
    return 'The in-memory engine is down because the test said so.';
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    this.calls.push('create');
    const sandbox = new MemorySandbox(this, spec, `memory-${++this.created}`);
    this.sandboxes.set(spec.sessionId, sandbox);
    return sandbox;
  }

  async reopen(spec: SandboxSpec, record: SandboxRecord, options: ReopenOptions = {}): Promise<Sandbox> {
    this.calls.push('reopen');
    const current = this.sandboxes.get(spec.sessionId);
    if (current && !options.remake && current.containerId === record.containerId) {
      // The container is still here: as an engine reads back what it was made with, looser limits are refused.
      if (spec.limits.memoryMb < current.spec.limits.memoryMb) {
        throw new SandpitError(
          'DENIED',
          `The container of session ${spec.sessionId} was not made with a sandbox's protections (its memory limit is ${current.spec.limits.memoryMb} MiB, not ${spec.limits.memoryMb} MiB): it is not taken over, and nothing is done to it.`,
          { reason: 'record-mismatch' },
        );
      }
      // Another handle on the same container: what a reaper finds stays the one it was made as.
      return new MemorySandbox(this, spec, record.containerId);
    }
    const sandbox = new MemorySandbox(this, spec, options.remake ? `memory-${++this.created}` : record.containerId);
    this.sandboxes.set(spec.sessionId, sandbox);
    return sandbox;
  }

  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** The engine's event stream ends (the engine may have gone away). */
  lose(): void {
    for (const listener of this.lostListeners) listener();
  }
}

export class MemorySandbox implements Sandbox {
  readonly channel: ChannelKind = 'attach';
  readonly runtime = 'memory';
  readonly sessionId: string;
  /** The package store: path → content (regular files only). */
  readonly packages = new Map<string, Buffer>();
  private running = false;
  private exitCode = 0;
  private agentOut: PassThrough | undefined;
  private readonly oomAt: number[] = [];
  private removed = false;

  constructor(
    private readonly backend: MemoryBackend,
    readonly spec: SandboxSpec,
    readonly containerId: string,
  ) {
    this.sessionId = spec.sessionId;
  }

  async start(timeoutMs: number): Promise<AgentChannel> {
    this.backend.calls.push('start');
    if (this.backend.override.start) return this.backend.override.start(timeoutMs);
    if (this.removed) throw new SandpitError('CONTAINER_DIED', `The sandbox ${this.containerId} was removed.`);
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough();
    let buffered = '';
    toAgent.setEncoding('utf8');
    toAgent.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        this.backend.agent(JSON.parse(line) as HostMessage, (message) => {
          if (!fromAgent.writableEnded) fromAgent.write(`${JSON.stringify(message)}\n`);
        }, this.spec);
      }
    });
    this.running = true;
    this.exitCode = 0;
    this.agentOut = fromAgent;
    return new LineChannel('attach', fromAgent, toAgent, () => fromAgent.end());
  }

  /** The sandbox's main process ends with this exit code (137 and `oom`: killed for memory). */
  exit(exitCode: number, oom = false): void {
    if (oom) this.oomAt.push(Date.now());
    this.running = false;
    this.exitCode = exitCode;
    this.agentOut?.end();
    this.agentOut = undefined;
  }

  /** The main process ends, but the engine never ends the channel's stream (a stuck attach). */
  stopKeepingStream(exitCode: number): void {
    this.running = false;
    this.exitCode = exitCode;
  }

  /** A process of the sandbox (not its main one) was killed for memory: reported, the sandbox runs on. */
  childKilledForMemory(): void {
    this.oomAt.push(Date.now());
  }

  async kill(): Promise<void> {
    this.backend.calls.push('kill');
    if (this.backend.override.kill) return this.backend.override.kill();
    this.exit(137);
  }

  async state(): Promise<SandboxState> {
    this.backend.calls.push('state');
    if (this.backend.override.state) return this.backend.override.state();
    return { running: this.running, exitCode: this.exitCode, oomKilled: false };
  }

  oomSince(sinceMs: number): boolean {
    return this.oomAt.some((at) => at >= sinceMs);
  }

  async waitForOom(sinceMs: number, timeoutMs: number): Promise<boolean> {
    return pollUntil(() => (this.oomSince(sinceMs) ? true : undefined), timeoutMs, 'an oom report').catch(() => false);
  }

  async exec(argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult> {
    this.backend.calls.push('exec');
    return this.backend.programs(argv, options, this) ?? { exitCode: 127, stdout: '', stderr: `${argv[0] ?? ''}: not found in the in-memory sandbox\n`, timedOut: false };
  }

  async runHelper(spec: HelperSpec): Promise<SandboxExecResult> {
    this.backend.calls.push('runHelper');
    return this.backend.programs(spec.cmd, { env: spec.env, timeoutMs: spec.timeoutMs, maxOutputBytes: spec.maxOutputBytes }, this) ?? { exitCode: 127, stdout: '', stderr: `${spec.cmd[0] ?? ''}: not found in the in-memory helper\n`, timedOut: false };
  }

  async stats(): Promise<SandboxStats> {
    this.backend.calls.push('stats');
    return { cpu: 0, memoryBytes: 16 * 1024 * 1024, memoryLimitBytes: this.spec.limits.memoryMb * 1024 * 1024, pids: this.running ? 1 : 0 };
  }

  async exportPackages(maxBytes: number): Promise<{ tar: Buffer; bytes: number } | undefined> {
    this.backend.calls.push('exportPackages');
    if (this.packages.size === 0) return undefined;
    const tar = await packFiles([...this.packages].map(([path, content]) => ({ path, content })), { maxFileBytes: maxBytes, maxTotalBytes: maxBytes });
    return { tar, bytes: tar.length };
  }

  async importPackages(tar: Buffer): Promise<void> {
    this.backend.calls.push('importPackages');
    await walkTar(tar, { timeoutMs: 10_000, maxArchiveBytes: 64 * 1024 * 1024 }, async (header, body) => {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      if (header.type === 'file') this.packages.set(header.name, Buffer.concat(chunks));
    });
  }

  async replaceFolders(folders: SandboxFolder[]): Promise<void> {
    this.backend.calls.push('replaceFolders');
    this.exit(137);
    this.spec.folders = folders;
  }

  async remove(): Promise<void> {
    this.backend.calls.push('remove');
    this.exit(137);
    this.removed = true;
    if (this.backend.sandboxes.get(this.sessionId) === this) this.backend.sandboxes.delete(this.sessionId);
  }

  record(): SandboxRecord {
    return { containerId: this.containerId, channel: this.channel, runtime: this.runtime };
  }
}
