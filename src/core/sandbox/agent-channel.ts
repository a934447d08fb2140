import type { Readable, Writable } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import { createLineSplitter, encodeHostMessage, parseAgentLine } from './protocol';
import type { AgentMessage, HostMessage } from './protocol';

/** One connection to one agent, whatever carries it (unix socket or attached stream). */
export interface AgentChannel {
  readonly kind: 'socket' | 'attach';
  send(message: HostMessage): void;
  onMessage(listener: (message: AgentMessage) => void): void;
  /** Called once when the channel ends; `reason` says why when it was not a clean close. */
  onClose(listener: (reason?: string) => void): void;
  readonly closed: boolean;
  close(): void;
}

/** Builds an AgentChannel over any readable/writable pair speaking JSON lines. */
export class LineChannel implements AgentChannel {
  private readonly messageListeners: Array<(message: AgentMessage) => void> = [];
  private readonly closeListeners: Array<(reason?: string) => void> = [];
  private isClosed = false;
  private closeReason: string | undefined;

  constructor(
    readonly kind: 'socket' | 'attach',
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly dispose: () => void,
  ) {
    const push = createLineSplitter(
      (line) => {
        const message = parseAgentLine(line);
        if (message) for (const l of this.messageListeners) l(message);
      },
      () => this.finish('the agent sent a line longer than the host accepts'),
    );
    input.on('data', (chunk: Buffer) => push(chunk));
    input.on('end', () => this.finish());
    input.on('close', () => this.finish());
    input.on('error', (error: Error) => this.finish(error.message));
    output.on('error', (error: Error) => this.finish(error.message));
  }

  get closed(): boolean {
    return this.isClosed;
  }

  send(message: HostMessage): void {
    if (this.isClosed) throw new SandpitError('CONTAINER_DIED', 'The sandbox is not connected (its container stopped).');
    this.output.write(encodeHostMessage(message));
  }

  onMessage(listener: (message: AgentMessage) => void): void {
    this.messageListeners.push(listener);
  }

  onClose(listener: (reason?: string) => void): void {
    if (this.isClosed) listener(this.closeReason);
    else this.closeListeners.push(listener);
  }

  close(): void {
    this.finish();
  }

  private finish(reason?: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closeReason = reason;
    try {
      this.dispose();
    } catch {
      // already gone
    }
    for (const l of this.closeListeners.splice(0)) l(reason);
  }
}
