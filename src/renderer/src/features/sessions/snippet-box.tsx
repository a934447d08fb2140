import { useState } from 'react';
import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { languageEntry } from '../../../../shared/domain/languages';
import { newExecutionId } from '../../lib/bytes';
import { LANGUAGE_WORDS } from '../../lib/format';
import { useAppStore, useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/** Run some code in this session from the panel; its output shows in the live output above. */
export function SnippetBox({ session, disabled }: { session: SessionInfo; disabled: boolean }): ReactElement {
  const client = useClient();
  const addNote = useAppStore('console', (s) => s.addNote);
  const [code, setCode] = useState('');
  const [running, setRunning] = useState(false);
  const [interrupting, setInterrupting] = useState(false);

  const run = async (): Promise<void> => {
    if (!code.trim() || running) return;
    setRunning(true);
    const executionId = newExecutionId();
    try {
      // Its output, value, error and note arrive as the run's live events, as for an assistant's run.
      await client.call('sessions.execute', { sessionId: session.id, code, executionId });
    } catch (error) {
      addNote(session.id, plainError(error), executionId);
    } finally {
      setRunning(false);
    }
  };

  const interrupt = async (): Promise<void> => {
    setInterrupting(true);
    try {
      await client.call('sessions.interrupt', { sessionId: session.id });
    } catch (error) {
      addNote(session.id, `Could not interrupt: ${plainError(error)}`);
    } finally {
      setInterrupting(false);
    }
  };

  return (
    <form
      className="card snippet"
      aria-labelledby="snippet-title"
      onSubmit={(event) => {
        event.preventDefault();
        void run();
      }}
    >
      <label id="snippet-title" htmlFor="snippet-code" className="label">
        Run {LANGUAGE_WORDS[session.language]} code in this session
      </label>
      <textarea
        id="snippet-code"
        className="code-input"
        rows={5}
        spellCheck={false}
        placeholder={languageEntry(session.language).greeting}
        value={code}
        onChange={(event) => setCode(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void run();
          }
        }}
        data-testid="snippet-code"
      />
      <div className="row">
        <span className="muted small">Ctrl+Enter runs it. Variables stay between runs.</span>
        <span className="actions">
          {session.state === 'busy' ? (
            <button
              type="button"
              className="secondary"
              onClick={() => void interrupt()}
              disabled={interrupting}
              data-testid="snippet-interrupt"
            >
              {interrupting ? 'Interrupting…' : 'Interrupt'}
            </button>
          ) : null}
          <button type="submit" disabled={disabled || running || !code.trim()} data-testid="snippet-run">
            {running ? 'Running…' : 'Run'}
          </button>
        </span>
      </div>
    </form>
  );
}
