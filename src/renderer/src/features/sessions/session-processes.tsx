import { useCallback, useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { ProcessInfo } from '../../../../shared/domain/process';
import { EmptyState } from '../../components/empty-state';
import { formatDuration } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/** The most output the panel keeps for the process it shows. */
const SHOWN_CHARS = 64 * 1024;

/** A process's state in words: running for how long, or how it ended. */
export function processStateWords(p: ProcessInfo, now: number): string {
  if (p.state === 'running') return `Running for ${formatDuration(now - Date.parse(p.startedAt))}`;
  if (p.state === 'exited') return p.exitCode === 0 ? 'Finished' : `Ended with exit code ${p.exitCode ?? 'unknown'}`;
  return `Stopped: ${p.stoppedBy ?? 'stopped'}`;
}

/** The processes a session keeps running (start_process): command, state, uptime, last lines, live output, Stop. */
export function SessionProcesses({ sessionId, disabled }: { sessionId: string; disabled: boolean }): ReactElement {
  const client = useClient();
  const now = useNow();
  const [processes, setProcesses] = useState<ProcessInfo[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  const [output, setOutput] = useState('');
  const [stopping, setStopping] = useState<string | undefined>();

  const load = useCallback(() => {
    client.call('processes.list', { sessionId }).then(
      (r) => {
        setProcesses(r.processes);
        setProblem(undefined);
      },
      (error: unknown) => setProblem(plainError(error)),
    );
  }, [client, sessionId]);

  useEffect(() => {
    load();
    return client.subscribe((event) => {
      if (event.name === 'process.updated' && event.payload.sessionId === sessionId) load();
    });
  }, [client, load, sessionId]);

  // The shown process's output: what is kept so far, then every new piece as it comes.
  useEffect(() => {
    if (!shown) return undefined;
    let live = true;
    setOutput('');
    const stop = client.subscribe((event) => {
      if (event.name === 'process.output' && event.payload.processId === shown)
        setOutput((text) => (text + event.payload.text).slice(-SHOWN_CHARS));
    });
    client.call('processes.output', { processId: shown }).then(
      (r) => {
        if (live) setOutput((text) => (r.text + text).slice(-SHOWN_CHARS));
      },
      (error: unknown) => live && setProblem(plainError(error)),
    );
    return () => {
      live = false;
      stop();
    };
  }, [client, shown]);

  if (problem)
    return (
      <p className="error" data-testid="processes-problem">
        {problem}
      </p>
    );
  if (!processes) return <p className="muted">Loading processes…</p>;
  if (processes.length === 0) {
    return (
      <EmptyState testId="processes-empty">
        No processes keep running in this session. An assistant starts one with start_process (a web app, a long job);
        it shows here with its output.
      </EmptyState>
    );
  }
  return (
    <div data-testid="processes">
      <ul className="plain-list">
        {processes.map((p) => (
          <li key={p.id} data-testid="process-row" data-process-id={p.id} data-state={p.state}>
            <div>
              <code data-testid="process-command">{p.command}</code>
            </div>
            <div className="muted small" data-testid="process-state">
              {processStateWords(p, now)}
            </div>
            {p.lastLines.length ? (
              <pre className="small" data-testid="process-last-lines">
                {p.lastLines.join('\n')}
              </pre>
            ) : null}
            <span className="actions">
              <button
                type="button"
                className="secondary"
                onClick={() => setShown(shown === p.id ? undefined : p.id)}
                data-testid="process-output-toggle"
              >
                {shown === p.id ? 'Hide output' : 'Show output'}
              </button>
              {p.state === 'running' ? (
                <button
                  type="button"
                  className="danger"
                  disabled={disabled || stopping === p.id}
                  onClick={() => {
                    setStopping(p.id);
                    client.call('processes.stop', { processId: p.id }).then(
                      () => setStopping(undefined),
                      (error: unknown) => {
                        setStopping(undefined);
                        setProblem(plainError(error));
                      },
                    );
                  }}
                  data-testid="process-stop"
                >
                  {stopping === p.id ? 'Stopping…' : 'Stop'}
                </button>
              ) : null}
            </span>
            {shown === p.id ? (
              <pre className="console" data-testid="process-output">
                {output || '(no output yet)'}
              </pre>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
