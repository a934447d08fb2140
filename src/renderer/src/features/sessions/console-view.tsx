import { useLayoutEffect, useRef } from 'react';
import type { ReactElement } from 'react';
import { ContentView } from '../../components/display-view';
import { stripAnsi } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';
import type { ConsoleEntry } from './console-buffer';
import { doneWords, runStatusTone } from './session-words';

function Entry({ entry }: { entry: ConsoleEntry }): ReactElement {
  switch (entry.kind) {
    case 'code':
      return (
        <pre className="con-code" data-testid="console-code">
          <span className="con-label">Ran</span>
          {entry.text}
        </pre>
      );
    case 'stdout':
    case 'stderr':
      return (
        <pre className={`con-${entry.kind}`} data-testid={`console-${entry.kind}`}>
          {stripAnsi(entry.text)}
        </pre>
      );
    case 'display':
      return (
        <div className="con-display" data-testid="console-display">
          <ContentView
            mime={entry.display.mime}
            {...(entry.display.encoding === 'base64' ? { base64: entry.display.data } : { text: entry.display.data })}
            title="Output of the run"
          />
        </div>
      );
    case 'result':
      return (
        <pre className="con-result" data-testid="console-result">
          {entry.text}
        </pre>
      );
    case 'error':
      return (
        <pre className="con-stderr" data-testid="console-error">
          {entry.text}
        </pre>
      );
    case 'note':
      return (
        <p className="con-note" data-testid="console-note">
          {entry.text}
        </p>
      );
    case 'done':
      return (
        <p
          className={`con-done tone-${runStatusTone(entry.status)}`}
          data-testid="console-done"
          data-status={entry.status}
        >
          {doneWords(entry.status, entry.durationMs, entry.stoppedBy)}
          {entry.errorCode ? <span className="con-code-word"> ({entry.errorCode})</span> : null}
        </p>
      );
  }
}

/** The session's live console: code, output as it streams (stderr in its own colour), pictures, how runs ended. */
export function ConsoleView({ sessionId }: { sessionId: string }): ReactElement {
  const buffer = useAppStore('console', (s) => s.buffers[sessionId]);
  const clear = useAppStore('console', (s) => s.clear);
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const entries = buffer?.entries ?? [];

  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [buffer]);

  return (
    <section className="card console-card" aria-labelledby="console-title">
      <div className="row">
        <h2 id="console-title">Live output</h2>
        <button
          type="button"
          className="secondary small"
          onClick={() => clear(sessionId)}
          disabled={entries.length === 0}
          data-testid="console-clear"
        >
          Clear
        </button>
      </div>
      <div
        ref={box}
        className="console"
        role="log"
        aria-label="Live output"
        tabIndex={0}
        data-testid="session-console"
        onScroll={(event) => {
          const el = event.currentTarget;
          stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 24;
        }}
      >
        {buffer?.trimmed ? <p className="con-note">Older output was removed to save memory.</p> : null}
        {entries.length === 0 ? (
          <p className="con-note" data-testid="console-empty">
            Nothing has run here since this window opened. Output appears here as soon as code runs — from your
            assistant or from the box below.
          </p>
        ) : (
          entries.map((entry) => <Entry key={entry.id} entry={entry} />)
        )}
      </div>
    </section>
  );
}
