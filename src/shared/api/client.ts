import { EVENT_NAMES } from './contract';
import type { EventName, EventPayload, MethodInput, MethodName, MethodOutput } from './contract';
import { ERROR_CODES, SandpitError } from './errors';
import type { ErrorCode } from './errors';
import type { AccessProblem, Transport } from './transport';

/** One live event, discriminated by its name. */
export type SandpitEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName];

/** Methods whose every input field is optional may be called without an input. */
type InputArgs<M extends MethodName> =
  Record<never, never> extends MethodInput<M> ? [input?: MethodInput<M>] : [input: MethodInput<M>];

export interface SandpitClient {
  readonly transport: Transport['kind'];
  /** Calls a method; resolves with its output or throws a SandpitError with the envelope's code. */
  call<M extends MethodName>(name: M, ...args: InputArgs<M>): Promise<MethodOutput<M>>;
  /** Live events from the core; unknown event names are dropped. Returns the unsubscribe function. */
  subscribe(listener: (event: SandpitEvent) => void): () => void;
  /** Told when the core stops answering and when it is back (never, over IPC). */
  onLink(listener: (up: boolean) => void): () => void;
  /** Switches the access token (web panel only; a no-op over IPC). */
  setToken(token: string): void;
  /** Told when the server refuses this page's token, and why (never, over IPC). */
  onRefused(listener: (problem: AccessProblem) => void): () => void;
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);
const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Turns what crossed the boundary into the value, or throws the typed error it carries. */
export function unwrapEnvelope(raw: unknown): unknown {
  if (isRecord(raw) && raw.ok === true && 'value' in raw) return raw.value;
  if (isRecord(raw) && raw.ok === false && isRecord(raw.error)) {
    const { code, message, details } = raw.error;
    const known = typeof code === 'string' && KNOWN_CODES.has(code);
    throw new SandpitError(
      known ? (code as ErrorCode) : 'INTERNAL',
      typeof message === 'string' ? message : 'Sandpit reported an error without a message.',
      known ? details : { code, details },
    );
  }
  throw new SandpitError('INTERNAL', 'Sandpit answered with something that is not a result envelope.');
}

export function createClient(transport: Transport): SandpitClient {
  return {
    transport: transport.kind,
    async call<M extends MethodName>(name: M, ...args: InputArgs<M>): Promise<MethodOutput<M>> {
      const raw = await transport.invoke(name, args[0] ?? {});
      return unwrapEnvelope(raw) as MethodOutput<M>;
    },
    subscribe(listener) {
      return transport.subscribe((name, payload) => {
        if (KNOWN_EVENTS.has(name)) listener({ name, payload } as SandpitEvent);
      });
    },
    onLink: (listener) => transport.onLink?.(listener) ?? ((): void => undefined),
    setToken: (token) => transport.setToken?.(token),
    onRefused: (listener) => transport.onRefused?.(listener) ?? ((): void => undefined),
  };
}
