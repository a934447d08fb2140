import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView } from '../../../../shared/domain/environment';
import { Modal } from '../../components/modal';
import { LANGUAGE_WORDS } from '../../lib/format';
import { useAppStore, usePanel } from '../../stores/panel-context';

/** What the person reads under an environment they may pick: its packages, or why it cannot start. */
function environmentNote(env: EnvironmentView): string {
  if (env.status.state === 'failed') return env.status.message;
  if (env.status.state === 'building') return 'Being built now: the session starts once it is ready.';
  if (env.status.state === 'not-built') return 'Built the first time (this can take a minute).';
  return env.description ?? '';
}

/** Starts a session from one of the environments (the built-in ones first). */
export function NewSessionDialog({ onClose }: { onClose: () => void }): ReactElement {
  const environments = useAppStore('environments', (s) => s.environments);
  const loadEnvironments = useAppStore('environments', (s) => s.load);
  const createSession = usePanel((s) => s.createSession);
  const navigate = usePanel((s) => s.navigate);
  const creating = usePanel((s) => s.pending.includes('new'));
  const [choice, setChoice] = useState<string>('python');

  useEffect(() => {
    void loadEnvironments();
  }, [loadEnvironments]);

  const chosen = environments.find((env) => env.id === choice);
  const start = async (): Promise<void> => {
    const session = await createSession({ environment: choice });
    onClose();
    if (session) navigate('sessions', session.id);
  };

  return (
    <Modal
      title="Start a new session"
      testId="new-session-dialog"
      onClose={onClose}
      actions={
        <button type="button" onClick={() => void start()} disabled={creating || chosen?.status.state === 'failed'} data-testid="new-session-start">
          {creating ? 'Starting…' : 'Start session'}
        </button>
      }
    >
      <fieldset className="choices">
        <legend>Start from</legend>
        {environments.map((env) => (
          <label key={env.id} className="choice" data-state={env.status.state}>
            <input
              type="radio"
              name="new-session"
              value={env.id}
              checked={choice === env.id}
              onChange={() => setChoice(env.id)}
              data-testid={`new-session-environment-${env.id}`}
            />
            <span>
              {env.name} <span className="muted small">({LANGUAGE_WORDS[env.language]}{env.preset ? ', built in' : ''})</span>
              <br />
              <span className={env.status.state === 'failed' ? 'small error-text' : 'muted small'}>{environmentNote(env)}</span>
            </span>
          </label>
        ))}
      </fieldset>
    </Modal>
  );
}
