import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { LANGUAGES } from '../../../../shared/domain/runtimes';
import { Modal } from '../../components/modal';
import { LANGUAGE_WORDS } from '../../lib/format';
import { useAppStore, usePanel } from '../../stores/panel-context';

/** Choice value: "language:python" or "environment:<id>". */
type Choice = `language:${string}` | `environment:${string}`;

/** Starts a session from a language's plain sandbox or from one of the environments. */
export function NewSessionDialog({ onClose }: { onClose: () => void }): ReactElement {
  const environments = useAppStore('environments', (s) => s.environments);
  const loadEnvironments = useAppStore('environments', (s) => s.load);
  const createSession = usePanel((s) => s.createSession);
  const navigate = usePanel((s) => s.navigate);
  const creating = usePanel((s) => s.pending.includes('new'));
  const [choice, setChoice] = useState<Choice>('language:python');

  useEffect(() => {
    void loadEnvironments();
  }, [loadEnvironments]);

  const start = async (): Promise<void> => {
    const [kind, value] = choice.split(':') as ['language' | 'environment', string];
    const session = await createSession(
      kind === 'language' ? { language: value as (typeof LANGUAGES)[number] } : { environment: value },
    );
    onClose();
    if (session) navigate('sessions', session.id);
  };

  return (
    <Modal
      title="Start a new session"
      testId="new-session-dialog"
      onClose={onClose}
      actions={
        <button type="button" onClick={() => void start()} disabled={creating} data-testid="new-session-start">
          {creating ? 'Starting…' : 'Start session'}
        </button>
      }
    >
      <fieldset className="choices">
        <legend>A plain sandbox</legend>
        {LANGUAGES.map((language) => (
          <label key={language} className="choice">
            <input
              type="radio"
              name="new-session"
              value={`language:${language}`}
              checked={choice === `language:${language}`}
              onChange={() => setChoice(`language:${language}`)}
              data-testid={`new-session-language-${language}`}
            />
            {LANGUAGE_WORDS[language]}
          </label>
        ))}
      </fieldset>
      <fieldset className="choices">
        <legend>From an environment (its packages, network and limits)</legend>
        {environments.length === 0 ? (
          <p className="muted small">No environments yet. Create one on the Environments screen.</p>
        ) : (
          environments.map((env) => (
            <label key={env.id} className="choice">
              <input
                type="radio"
                name="new-session"
                value={`environment:${env.id}`}
                checked={choice === `environment:${env.id}`}
                onChange={() => setChoice(`environment:${env.id}`)}
                data-testid={`new-session-environment-${env.id}`}
              />
              {env.name} <span className="muted small">({LANGUAGE_WORDS[env.language]})</span>
            </label>
          ))
        )}
      </fieldset>
    </Modal>
  );
}
