import { useState } from 'react';
import type { ReactElement } from 'react';
import type { AssistantConfig, ConnectInfo } from '../../../../shared/domain/connect';
import { CopyButton } from '../../components/copy-button';
import { withToken } from './connect-text';

const ASSISTANTS = [
  ['claudeDesktop', 'Claude Desktop'],
  ['cursor', 'Cursor'],
  ['vscode', 'VS Code'],
  ['claudeCode', 'Claude Code'],
] as const;
type AssistantKey = (typeof ASSISTANTS)[number][0];

function Block({
  title,
  text,
  testId,
  note,
}: {
  title: string;
  text: string;
  testId: string;
  note?: string;
}): ReactElement {
  return (
    <div className="config-block">
      <div className="row">
        <h3>{title}</h3>
        <CopyButton text={text} testId={`${testId}-copy`} />
      </div>
      {note ? <p className="muted small">{note}</p> : null}
      <pre className="content-text" data-testid={testId}>
        {text}
      </pre>
    </div>
  );
}

/** Copy-paste configuration for each assistant, over stdio and (where it can) HTTP. */
export function AssistantConfigs({
  configs,
  token,
}: {
  configs: ConnectInfo['configs'];
  token: string | undefined;
}): ReactElement {
  const [which, setWhich] = useState<AssistantKey>('claudeDesktop');
  const config: AssistantConfig = configs[which];
  return (
    <section className="card" aria-labelledby="configs-title" data-testid="connect-configs">
      <h2 id="configs-title">Set up your assistant</h2>
      <div className="tabs" role="tablist" aria-label="Assistant">
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
        title="Recommended: start Sandpit for the assistant (stdio)"
        text={config.stdio}
        testId="connect-config-stdio"
      />
      {config.http ? (
        <Block
          title="Or connect over HTTP"
          text={withToken(config.http, token)}
          testId="connect-config-http"
          {...(token ? {} : { note: 'Reveal the access token above to fill it in here.' })}
        />
      ) : null}
    </section>
  );
}
