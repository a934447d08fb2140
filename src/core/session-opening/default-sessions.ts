import type { Language } from '../../shared/domain/languages';
import type { EventBus } from '../events/event-bus';
import type { Session } from '../sessions/session';

/**
 * Each caller's default session per language, created on first use, so the simplest client just
 * works: `execute_code` without a session id. Concurrent first calls share one creation.
 */
export class DefaultSessions {
  private readonly ids = new Map<string, string>();
  private readonly creating = new Map<string, Promise<Session>>();

  constructor(
    private readonly create: (principal: string, language: Language, client: string | undefined) => Promise<Session>,
    private readonly find: (sessionId: string) => Session | undefined,
    bus: EventBus,
  ) {
    bus.on('session.removed', ({ sessionId }) => {
      for (const [key, id] of this.ids) if (id === sessionId) this.ids.delete(key);
    });
  }

  /** The caller's default session for `language` if it exists (never creates one). */
  current(principal: string, language: Language): string | undefined {
    return this.ids.get(`${principal}\u0000${language}`);
  }

  async resolve(principal: string, language: Language, client: string | undefined): Promise<Session> {
    const key = `${principal}\u0000${language}`;
    const known = this.ids.get(key);
    const session = known === undefined ? undefined : this.find(known);
    if (session) return session;
    let pending = this.creating.get(key);
    if (!pending) {
      pending = this.create(principal, language, client)
        .then((created) => {
          this.ids.set(key, created.id);
          return created;
        })
        .finally(() => this.creating.delete(key));
      this.creating.set(key, pending);
    }
    return pending;
  }
}
