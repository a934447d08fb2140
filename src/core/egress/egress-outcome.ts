/**
 * How a connection the egress proxy let through ended up: it reached the host (and, for plain HTTP, what the
 * host answered), or it failed — in words a person reads in Network activity ("reached" only when it did).
 */
export interface EgressOutcome {
  connected: boolean;
  /** Plain HTTP: the status the host answered. */
  status?: number;
  statusText?: string;
  /** A failed connection: the socket error code (ENOTFOUND, ECONNREFUSED, ETIMEDOUT …). */
  code?: string;
}

const FAILURE_WORDS: Record<string, string> = {
  ENOTFOUND: 'its address could not be found (is this computer offline?)',
  EAI_AGAIN: 'its address could not be looked up (is this computer offline?)',
  ECONNREFUSED: 'it refused the connection',
  ETIMEDOUT: 'it did not answer in time',
  ENETUNREACH: 'no network route leads to it (is this computer offline?)',
  EHOSTUNREACH: 'no network route leads to it (is this computer offline?)',
  ECONNRESET: 'the connection was cut',
};

/** The outcome in words: "answered 404 Not Found", "it refused the connection". */
export function outcomeWords(outcome: EgressOutcome): string | undefined {
  if (outcome.connected) return outcome.status === undefined ? undefined : `answered ${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''}`;
  return (outcome.code ? FAILURE_WORDS[outcome.code] : undefined) ?? `the connection failed${outcome.code ? ` (${outcome.code})` : ''}`;
}
