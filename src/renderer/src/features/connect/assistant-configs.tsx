import { useState } from 'react';
import type { ReactElement } from 'react';
import type { AssistantConfig, ConnectInfo } from '../../../../shared/domain/connect';
import { CopyButton } from '../../components/copy-button';
import { ASSISTANTS } from './assistants';
import type { AssistantKey } from './assistants';
import { withToken } from './connect-text';
import { KeyedCopyButton } from './keyed-copy-button';

function Block({
  title,
  text,
  testId,
  note,
  copyLabel,
  keyed,
}: {
  title: string;
  text: string;
  testId: string;
  note?: string;
  copyLabel: string;
  /** The text needs the access key: the copy gets the real one (the shown text keeps the placeholder until "Show"). */
  keyed?: { token: string | undefined };
}): ReactElement {
  return (
    <div className="config-block">
      <div className="row">
        <h3>{title}</h3>
        {keyed ? (
          <KeyedCopyButton text={text} token={keyed.token} label={copyLabel} testId={`${testId}-copy`} />
        ) : (
          <CopyButton text={text} label={copyLabel} testId={`${testId}-copy`} />
        )}
      </div>
      {note ? <p className="muted small">{note}</p> : null}
      <details>
        <summary className="small">Show what gets copied</summary>
        <pre className="content-text" data-testid={testId}>
          {text}
        </pre>
      </details>
    </div>
  );
}

/** Copy-paste setup for each assistant: the one to use first, and the network way for apps that need it. */
export function AssistantConfigs({ configs, token }: { configs: ConnectInfo['configs']; token: string | undefined }): ReactElement {
  const [which, setWhich] = useState<AssistantKey>('claudeDesktop');
  const config: AssistantConfig = configs[which];
  return (
    <section className="card" aria-labelledby="configs-title" data-testid="connect-configs">
      <h2 id="configs-title">Or set up your assistant by hand</h2>
      <p className="muted">Pick your app, copy its setup, paste it where it says, then restart the app.</p>
      <div className="tabs tabs-plain" role="tablist" aria-label="Assistant">
        {ASSISTANTS.map(([key, label]) => (
          <button
            key={key}
            type="button"
            role="tab"
            aria-selected={which === key}
            className={which === key ? 'tab tab-on' : 'tab'}
            onClick={() => setWhich(key)}
            data-testid={`connect-config-${key}`}
          >
            {label}
          </button>
        ))}
      </div>
      <p data-testid="connect-config-where">{config.where}</p>
      <Block
        title="Recommended: the app starts Sandpit by itself"
        text={config.stdio}
        copyLabel="Copy the setup"
        testId="connect-config-stdio"
      />
      {config.http ? (
        <Block
          title="Or: the app connects to Sandpit while it runs"
          text={withToken(config.http, token)}
          copyLabel="Copy this setup"
          testId="connect-config-http"
          keyed={{ token }}
          note="What gets copied holds the access key (keep it to yourself); it is shown here once you press “Show” under “Access key for assistants”."
        />
      ) : null}
    </section>
  );
}
