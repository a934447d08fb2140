/** The HTTP surface's resource limits (settings; every one has a safe default). */
export interface HttpLimits {
  /** Largest request body; one byte more is a 413. */
  maxBodyBytes: number;
  /** A request body must arrive within this time, else 408. */
  bodyTimeoutMs: number;
  /** Requests one token may have in flight at once; the next is a 429. */
  maxInFlightPerToken: number;
  /** Long-lived streams (SSE: /api/events, MCP GET) one token may hold open at once. */
  maxStreamsPerToken: number;
  /** Open connections the server accepts at all; more are closed at once. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 10 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  maxInFlightPerToken: 16,
  maxStreamsPerToken: 16,
  maxConnections: 1_024,
};
