import type { EngineEvent } from './docker-client';

/**
 * Reads the engine's JSON-lines event stream (as `docker.getEvents` opens it): each event to `onEvent`,
 * malformed lines skipped; `onEnd` once, when the stream ends or fails. Returns the stop function.
 */
export function followEventStream(stream: NodeJS.ReadableStream, onEvent: (event: EngineEvent) => void, onEnd: (error?: Error) => void): () => void {
  let buffer = '';
  let ended = false;
  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    onEnd(error);
  };
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      if (!line) continue;
      try {
        const e = JSON.parse(line) as { Type?: string; Action?: string; id?: string; Actor?: { ID?: string; Attributes?: Record<string, string> }; time?: number };
        const attributes = e.Actor?.Attributes ?? {};
        const exit = attributes.exitCode;
        onEvent({
          type: e.Type ?? '',
          action: e.Action ?? '',
          id: e.Actor?.ID ?? e.id ?? '',
          labels: attributes,
          exitCode: exit === undefined ? undefined : Number(exit),
          time: e.time ?? Date.now() / 1000,
        });
      } catch {
        // A malformed event line is skipped; the stream goes on.
      }
    }
  });
  stream.on('end', () => end());
  stream.on('close', () => end());
  stream.on('error', (error: Error) => end(error));
  return () => {
    ended = true;
    (stream as unknown as { destroy(): void }).destroy();
  };
}
