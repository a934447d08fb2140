import type { Language } from '../../shared/domain/session';
import type { EventBus } from './event-bus';
import type { SessionManager } from '../sessions/session-manager';

/**
 * Each caller's default session per language, created on first use, so the simplest client just
 * works: `execute_code` without a session id. Concurrent first calls share one creation.
 */
export class DefaultSessions {
  private readonly ids = new Map<string, string>();
  private readonly creating = new Map<string, Promise<string>>();

  constructor(
    private readonly sessions: SessionManager,
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

  async resolve(principal: string, language: Language, client: string | undefined): Promise<string> {
    const key = `${principal}\u0000${language}`;
    const known = this.ids.get(key);
    if (known) return known;
    let pending = this.creating.get(key);
    if (!pending) {
      pending = this.sessions
        .create({ language, owner: principal, client })
        .then((info) => {
          this.ids.set(key, info.id);
          return info.id;
        })
        .finally(() => this.creating.delete(key));
      this.creating.set(key, pending);
    }
    return pending;
  }
}
