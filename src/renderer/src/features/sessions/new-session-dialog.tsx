import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView } from '../../../../shared/domain/environment';
import { Modal } from '../../components/modal';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { environmentBlurb, environmentState } from '../environments/environment-words';
import { DEFAULT_LANGUAGE, LANGUAGE_ENTRIES } from '../../../../shared/domain/languages';
import { SessionSecretChoice, whyNoSecrets } from './session-secret-choice';

/** Why an environment cannot (or not at once) start a session, or nothing. */
function statusNote(env: EnvironmentView): string | undefined {
  const state = environmentState(env);
  if (state === 'failed') return `Cannot start: its last build failed. ${env.build?.diagnosis?.summary ?? ''}`.trim();
  if (state === 'building') return 'Being built now: the session starts once it is ready.';
  if (state === 'not-built') return 'Made the first time it is used (this can take a minute).';
  return undefined;
}

function Choice({ env, checked, onPick }: { env: EnvironmentView; checked: boolean; onPick: () => void }): ReactElement {
  const note = statusNote(env);
  const state = environmentState(env);
  const failed = state === 'failed';
  return (
    <label className={`choice choice-block${failed ? ' choice-failed' : ''}`} data-state={state} data-testid="new-session-choice">
      <input type="radio" name="new-session" value={env.id} checked={checked} onChange={onPick} data-testid={`new-session-environment-${env.id}`} />
      <span>
        <strong>{env.name}</strong>
        {failed ? <span className="badge badge-failed">Build failed</span> : null}
        <span className="muted small block">{environmentBlurb(env)}</span>
        {note ? <span className={failed ? 'small block error-text' : 'small block muted'}>{note}</span> : null}
      </span>
    </label>
  );
}

/** Starts a session from one of the environments: the built-in ones, then the person's own. */
export function NewSessionDialog({ onClose }: { onClose: () => void }): ReactElement {
  const environments = useAppStore('environments', (s) => s.environments);
  const loadEnvironments = useAppStore('environments', (s) => s.load);
  const createSession = usePanel((s) => s.createSession);
  const navigate = usePanel((s) => s.navigate);
  const creating = usePanel((s) => s.pending.includes('new'));
  const [choice, setChoice] = useState<string>(LANGUAGE_ENTRIES[DEFAULT_LANGUAGE].defaultEnvironment);
  const [keep, setKeep] = useState(false);
  // The secrets ticked for this session (by name); another environment starts with none ticked.
  const [secrets, setSecrets] = useState<string[]>([]);

  useEffect(() => {
    void loadEnvironments();
  }, [loadEnvironments]);

  const chosen = environments.find((env) => env.id === choice);
  const failed = chosen !== undefined && environmentState(chosen) === 'failed';
  const pick = (id: string): void => {
    setChoice(id);
    setSecrets([]);
  };
  const start = async (): Promise<void> => {
    const withSecrets = chosen !== undefined && whyNoSecrets(chosen) === undefined && secrets.length > 0;
    const session = await createSession({ environment: choice, ...(keep ? { keep: true } : {}), ...(withSecrets ? { secrets } : {}) });
    onClose();
    if (session) navigate('sessions', session.id);
  };
  const presets = environments.filter((e) => e.preset);
  const mine = environments.filter((e) => !e.preset);

  return (
    <Modal
      title="Start a new session"
      testId="new-session-dialog"
      onClose={onClose}
      actions={
        failed ? (
          <button
            type="button"
            onClick={() => {
              onClose();
              navigate('environments');
            }}
            data-testid="new-session-fix"
          >
            Fix it in Environments
          </button>
        ) : (
          <button type="button" onClick={() => void start()} disabled={creating || !chosen} data-testid="new-session-start">
            {creating ? 'Starting…' : 'Start session'}
          </button>
        )
      }
    >
      <p className="muted">A session is a fresh sandbox. Pick what it starts with:</p>
      <fieldset className="choices">
        <legend>Built in</legend>
        {presets.map((env) => (
          <Choice key={env.id} env={env} checked={choice === env.id} onPick={() => pick(env.id)} />
        ))}
      </fieldset>
      {mine.length > 0 ? (
        <fieldset className="choices">
          <legend>Yours</legend>
          {mine.map((env) => (
            <Choice key={env.id} env={env} checked={choice === env.id} onPick={() => pick(env.id)} />
          ))}
        </fieldset>
      ) : null}
      {chosen ? <SessionSecretChoice env={chosen} chosen={secrets} onChange={setSecrets} /> : null}
      <label className="choice" data-testid="new-session-keep-choice">
        <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} data-testid="new-session-keep" />
        <span>
          <strong>Keep this session</strong>
          <span className="muted small block">It stays when Sandpit quits: its files and installed packages are there next time (variables are not).</span>
        </span>
      </label>
    </Modal>
  );
}
