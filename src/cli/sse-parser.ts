/**
 * Splits a text/event-stream into the `data` of its events (lines joined with "\n"), as chunks arrive.
 * Comments (":"), `event`, `id` and `retry` fields are read past: the bridge needs only the messages.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];

  /** The data of every event `chunk` completes. */
  push(chunk: string): string[] {
    this.buffer += chunk;
    const events: string[] = [];
    let end: number;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, end);
      const width = this.buffer.startsWith('\r\n', end) ? 2 : 1;
      // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
      if (width === 1 && this.buffer[end] === '\r' && end === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(end + width);
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
    return events;
  }
}
