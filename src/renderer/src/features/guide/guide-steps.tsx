import { useEffect, useState } from 'react';
import type { ReactElement, ReactNode } from 'react';
import { CopyButton } from '../../components/copy-button';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { ASSISTANTS } from '../connect/assistants';
import type { AssistantKey } from '../connect/assistants';

export const FIRST_PROMPT = 'Use Sandpit to run some Python code that prints today’s date and the numbers 1 to 5.';

function Step({
  n,
  title,
  done,
  doneText,
  children,
}: {
  n: number;
  title: string;
  done: boolean;
  doneText: string;
  children: ReactNode;
}): ReactElement {
  return (
    <li
      className={done ? 'guide-step guide-done' : 'guide-step'}
      data-testid="guide-step"
      data-step={n}
      data-done={done}
    >
      <span className="guide-mark" aria-hidden="true">
        {done ? '✓' : n}
      </span>
      <div>
        <h3>
          {title}
          {done ? <span className="badge badge-ready">{doneText}</span> : null}
        </h3>
        {children}
      </div>
    </li>
  );
}

/** Content that folds away behind `summary` once its step is done. */
function Collapsed({ when, summary, children }: { when: boolean; summary: string; children: ReactNode }): ReactElement {
  if (!when) return <>{children}</>;
  return (
    <details>
      <summary className="small">{summary}</summary>
      {children}
    </details>
  );
}

/** The three steps of the first run: connect an assistant, let it run code, see it here. */
export function GuideSteps(): ReactElement {
  const info = useAppStore('connect', (s) => s.info);
  const loadConnect = useAppStore('connect', (s) => s.load);
  const connected = useAppStore('guide', (s) => s.connected);
  const ran = useAppStore('guide', (s) => s.ran);
  const navigate = usePanel((s) => s.navigate);
  const [app, setApp] = useState<AssistantKey>('claudeDesktop');

  useEffect(() => {
    if (!info) void loadConnect();
  }, [info, loadConnect]);

  const config = info?.configs[app];
  const names = [...new Set((info?.clients ?? []).map((c) => c.name))];
  return (
    <ol className="guide-steps">
      <Step
        n={1}
        title="Connect your assistant"
        done={connected}
        doneText={names.length > 0 ? `Connected: ${names.join(', ')}` : 'Connected'}
      >
        <Collapsed when={connected} summary="Set up another app">
          <p className="muted">Which app do you use? Copy its setup, paste it where it says, then restart the app.</p>
          <div className="tabs tabs-plain" role="tablist" aria-label="Your assistant">
            {ASSISTANTS.map(([key, label]) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={app === key}
                className={app === key ? 'tab tab-on' : 'tab'}
                onClick={() => setApp(key)}
                data-testid={`guide-app-${key}`}
              >
                {label}
              </button>
            ))}
          </div>
          {config ? (
            <div className="guide-config">
              <p data-testid="guide-where">{config.where}</p>
              <div className="row">
                <CopyButton text={config.stdio} label="Copy the setup" testId="guide-config-copy" />
                <button
                  type="button"
                  className="link-button small"
                  onClick={() => navigate('connect')}
                  data-testid="guide-more"
                >
                  Other ways to connect
                </button>
              </div>
              <details>
                <summary className="small">Show what gets copied</summary>
                <pre className="content-text" data-testid="guide-config">
                  {config.stdio}
                </pre>
              </details>
            </div>
          ) : (
            <p className="muted">Loading the setup…</p>
          )}
        </Collapsed>
      </Step>
      <Step n={2} title="Try a first run" done={ran} doneText="Done">
        <p>In your assistant’s chat, ask for example:</p>
        <blockquote className="guide-prompt" data-testid="guide-prompt">
          {FIRST_PROMPT}
        </blockquote>
        <CopyButton text={FIRST_PROMPT} label="Copy this request" testId="guide-prompt-copy" />
        <p className="muted small">Your assistant may ask you to allow Sandpit the first time: say yes.</p>
      </Step>
      <Step n={3} title="See it here" done={ran} doneText="Done">
        <p>
          The code and what it printed show up under{' '}
          <button type="button" className="link-button" onClick={() => navigate('sessions')}>
            Sessions
          </button>{' '}
          as it runs, and every run is recorded in{' '}
          <button type="button" className="link-button" onClick={() => navigate('activity')}>
            Activity
          </button>
          .
        </p>
      </Step>
    </ol>
  );
}
