import type { EventPayload } from '../../shared/api/contract';
import type { EgressEntry } from '../../shared/domain/egress';
import { refusalWords } from './egress-target';
import type { EgressRefusalReason } from './egress-target';

const PER_SESSION = 500;
const TOTAL = 5_000;

/**
 * The hosts sessions tried to reach through the egress proxy, let through or refused, newest kept: for
 * the session page and Activity ("tried to reach example.com — blocked: not a package index"). In memory:
 * the audit log records runs; this records the network around them while Sandpit runs.
 */
export class EgressLog {
  private readonly all: EgressEntry[] = [];
  private readonly bySession = new Map<string, EgressEntry[]>();

  /** `nameOf`: a session's name now (an entry keeps it, so Activity names a session that has ended since). */
  constructor(private readonly nameOf: (sessionId: string) => string | undefined = () => undefined) {}

  refused(event: EventPayload<'egress.refused'>): void {
    const reasonCode = event.reason;
    this.add({
      time: event.time,
      host: event.host,
      port: event.port,
      allowed: false,
      reason: refusalWords(reasonCode as EgressRefusalReason),
      reasonCode,
      ...(event.sessionId ? { sessionId: event.sessionId } : {}),
    });
  }

  allowed(event: EventPayload<'egress.allowed'>): void {
    const secrets = event.secrets?.length ? { secrets: event.secrets, secretWords: `used secret${event.secrets.length > 1 ? 's' : ''} ${event.secrets.join(', ')} for ${event.host}` } : {};
    this.add({ time: event.time, host: event.host, port: event.port, allowed: true, sessionId: event.sessionId, ...secrets });
  }

  /** How a passage let through ended: the newest entry of that session and target still without an outcome gets it. */
  outcome(event: EventPayload<'egress.outcome'>): void {
    const list = this.bySession.get(event.sessionId) ?? [];
    for (let i = list.length - 1; i >= 0; i -= 1) {
      const entry = list[i]!;
      if (entry.allowed && entry.connected === undefined && entry.host === event.host && entry.port === event.port) {
        entry.connected = event.connected;
        if (event.answer !== undefined) entry.answer = event.answer;
        return;
      }
    }
  }

  /** Newest first, of one session or of those `visible` says the caller may see. */
  recent(limit: number, sessionId?: string, visible: (sessionId: string | undefined) => boolean = () => true): EgressEntry[] {
    const source = sessionId === undefined ? this.all : (this.bySession.get(sessionId) ?? []);
    const out: EgressEntry[] = [];
    for (let i = source.length - 1; i >= 0 && out.length < limit; i -= 1) {
      const entry = source[i]!;
      if (visible(entry.sessionId)) out.push(entry);
    }
    return out;
  }

  private add(entry: EgressEntry): void {
    const name = entry.sessionId ? this.nameOf(entry.sessionId) : undefined;
    if (name !== undefined) entry.sessionName = name;
    this.all.push(entry);
    if (this.all.length > TOTAL) this.all.splice(0, this.all.length - TOTAL);
    if (!entry.sessionId) return;
    const list = this.bySession.get(entry.sessionId) ?? [];
    list.push(entry);
    if (list.length > PER_SESSION) list.splice(0, list.length - PER_SESSION);
    this.bySession.set(entry.sessionId, list);
  }
}
