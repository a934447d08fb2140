import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { StdioLineTransport } from './stdio-line-transport';

/** The answer to give a message at once, before the server is there (undefined: the server answers it). */
export type EarlyAnswer = (message: JSONRPCMessage) => JSONRPCMessage | undefined;

/**
 * The stdio transport of `sandpit mcp` while the MCP server is still loading. `listen()` starts reading at
 * once: a message `answer` knows (the `initialize` request) is answered on the spot, and every message —
 * that one too — is kept. When the server connects (`start()`), it gets them all, in order, and then the
 * live stream; its own reply to a request answered early is not sent again. So the server's state is the
 * same as if it had read the stream itself (it saw `initialize`), and the client gets one answer per request.
 */
export class EarlyAnswerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /**
   * Set once the server may load (it needs the SDK's schemas): a message it returns an answer for is answered
   * with that and never reaches the server — kept messages and the live stream alike.
   */
  refuse?: EarlyAnswer;

  /** Resolves when the first message has come in (and, if it was one, been answered). */
  readonly firstMessage: Promise<void>;
  private gotFirst!: () => void;
  private readonly kept: JSONRPCMessage[] = [];
  /** Requests answered early, whose reply from the server is dropped. */
  private readonly answered = new Map<RequestId, JSONRPCMessage>();
  private connected = false;

  constructor(
    private readonly stdio: StdioLineTransport,
    private readonly answer: EarlyAnswer,
    /** Told when the server's reply to a request answered early says something else (e.g. an error). */
    private readonly onDisagreement: (early: JSONRPCMessage, late: JSONRPCMessage) => void = () => undefined,
  ) {
    this.firstMessage = new Promise((resolve) => {
      this.gotFirst = resolve;
    });
  }

  /** Starts reading stdin (call once, before the server exists). */
  async listen(): Promise<void> {
    this.stdio.onmessage = (message) => this.early(message);
    this.stdio.onerror = (error) => this.onerror?.(error);
    this.stdio.onclose = () => this.onclose?.();
    await this.stdio.start();
  }

  /** The server connects: it reads what came so far, then the live stream. */
  async start(): Promise<void> {
    if (this.connected) throw new Error('EarlyAnswerTransport already started (connect() starts it).');
    this.connected = true;
    this.stdio.onmessage = (message, extra) => this.deliver(message, extra);
    for (const message of this.kept.splice(0)) this.deliver(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const id = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    if (id !== undefined) {
      const early = this.answered.get(id);
      if (early) {
        this.answered.delete(id);
        if ('error' in message) this.onDisagreement(early, message);
        return Promise.resolve();
      }
    }
    return this.stdio.send(message);
  }

  close(): Promise<void> {
    return this.stdio.close();
  }

  private deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const refusal = this.refuse?.(message);
    if (!refusal) {
      this.onmessage?.(message, extra);
      return;
    }
    this.stdio.send(refusal).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  private early(message: JSONRPCMessage): void {
    this.kept.push(message);
    this.gotFirst();
    const reply = this.answer(message);
    const id = 'id' in message ? message.id : undefined;
    if (!reply || id === undefined || this.answered.has(id)) return;
    this.answered.set(id, reply);
    this.stdio.send(reply).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}
