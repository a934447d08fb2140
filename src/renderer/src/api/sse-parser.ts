/** One server-sent event as the EventSource spec defines it. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * Incremental text/event-stream parser (WHATWG "interpreting an event stream"): feed it decoded text in
 * any chunking; it returns the events completed so far. Also keeps the last id and the server's retry hint.
 */
export class SseParser {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private started = false;

  push(text: string): SseMessage[] {
    this.buffer += text;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.startsWith('\uFEFF')) this.buffer = this.buffer.slice(1);
    }
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      // A trailing \r may be the first half of \r\n: wait for the next chunk.
      if (ch === '\r' && i === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, i), out);
      if (ch === '\r' && this.buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.data.length > 0)
        out.push({
          event: this.event || 'message',
          data: this.data.join('\n'),
          ...(this.lastEventId === undefined ? {} : { id: this.lastEventId }),
        });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}

/** Reads a fetch body as an event stream until it ends or the signal aborts. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  onMessage: (message: SseMessage) => void,
  onBytes: () => void = () => undefined,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Heartbeat comments count too: they say the server is there.
      onBytes();
      for (const message of parser.push(decoder.decode(value, { stream: true }))) onMessage(message);
    }
    for (const message of parser.push(decoder.decode())) onMessage(message);
  } finally {
    reader.releaseLock();
  }
}
