import { useState } from 'react';
import type { ReactElement } from 'react';
import { APPROVAL_POLICIES } from '../../../../shared/domain/approval';
import type { ApprovalPolicy } from '../../../../shared/domain/approval';
import { useAppStore } from '../../stores/panel-context';
import { RULE_MATCHING_EXPLAINED, unmatchedWarning } from './approval-rule-match';
import type { SettingsDraft } from './settings-draft';
import { Field, FieldError, SettingsSection } from './settings-section';

export const POLICY_WORDS: Record<ApprovalPolicy, { title: string; explain: string }> = {
  free: {
    title: 'Run freely',
    explain: 'The assistant runs code without asking. Everything is still recorded in Activity.',
  },
  'ask-every': {
    title: 'Ask me every time',
    explain: 'Each run, command, install and new session waits for your OK here.',
  },
  'ask-new': {
    title: 'Ask for new things only',
    explain: 'Asks before new sessions, package installs and runs that can use the network; other runs go ahead.',
  },
};

/** Who may run code without asking: a default policy, one per client, and how long a request waits. */
export function ApprovalsSection({ draft }: { draft: SettingsDraft }): ReactElement {
  const edit = useAppStore('settings', (s) => s.edit);
  const errors = useAppStore('settings', (s) => s.errors);
  const seen = useAppStore('connect', (s) => s.info?.seenClients) ?? [];
  const { approvalDefault: policy, perClient } = draft;
  const setPerClient = (next: Record<string, ApprovalPolicy>): void => edit({ perClient: next });
  const [newClient, setNewClient] = useState('');
  const suggestions = seen.filter((n) => !(n in perClient));
  const typedWarning = unmatchedWarning(newClient, seen);
  const addRule = (name: string): void => {
    setPerClient({ ...perClient, [name]: 'ask-every' });
    setNewClient('');
  };

  return (
    <SettingsSection
      title="Approvals"
      testId="settings-approvals"
      intro="Decide when an assistant must ask you before running code. Code you run from this panel never asks."
    >
      <fieldset className="choices" data-testid="settings-approval-default">
        <legend className="label">For every assistant (unless set below)</legend>
        {APPROVAL_POLICIES.map((p) => (
          <label key={p} className="choice choice-block">
            <input
              type="radio"
              name="approval-default"
              checked={policy === p}
              onChange={() => edit({ approvalDefault: p })}
              data-testid={`settings-approval-default-${p}`}
            />
            <span>
              <strong>{POLICY_WORDS[p].title}</strong>
              <span className="muted small block">{POLICY_WORDS[p].explain}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <span className="label">Per assistant</span>
        {Object.keys(perClient).length === 0 ? (
          <p className="muted small">
            No assistant has its own rule. Add one below.
          </p>
        ) : (
          <ul className="list" data-testid="settings-approval-clients">
            {Object.entries(perClient).map(([name, p]) => (
              <li key={name} className="list-row" data-testid="settings-approval-client" data-client={name}>
                <span>
                  <strong>{name}</strong>
                  {unmatchedWarning(name, seen) ? (
                    <span className="field-error small block" data-testid="settings-approval-client-unmatched">
                      {unmatchedWarning(name, seen)}
                    </span>
                  ) : null}
                </span>
                <span className="actions">
                  <select
                    aria-label={`Rule for ${name}`}
                    value={p}
                    onChange={(e) => setPerClient({ ...perClient, [name]: e.target.value as ApprovalPolicy })}
                  >
                    {APPROVAL_POLICIES.map((x) => (
                      <option key={x} value={x}>
                        {POLICY_WORDS[x].title}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove the rule for ${name}`}
                    onClick={() => {
                      const { [name]: _gone, ...rest } = perClient;
                      setPerClient(rest);
                    }}
                  >
                    Remove
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
        <p className="muted small" data-testid="settings-approval-matching">
          {RULE_MATCHING_EXPLAINED}
        </p>
        {suggestions.length > 0 ? (
          <div className="inline-add" data-testid="settings-approval-seen">
            <span className="muted small">Connected since Sandpit started:</span>
            {suggestions.map((n) => (
              <button
                key={n}
                type="button"
                className="secondary small"
                aria-label={`Add a rule for ${n}`}
                onClick={() => addRule(n)}
                data-testid="settings-approval-seen-client"
                data-client={n}
              >
                {n}
              </button>
            ))}
          </div>
        ) : null}
        <div className="inline-add">
          <input
            type="text"
            list="approval-client-names"
            aria-label="Assistant name"
            aria-describedby={typedWarning ? 'settings-approval-new-client-warning' : undefined}
            placeholder="Or type a name, e.g. claude-ai"
            value={newClient}
            onChange={(e) => setNewClient(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') e.preventDefault();
            }}
            data-testid="settings-approval-new-client"
          />
          <datalist id="approval-client-names">
            {suggestions.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <button
            type="button"
            className="secondary"
            disabled={!newClient.trim() || newClient.trim() in perClient}
            onClick={() => addRule(newClient.trim())}
            data-testid="settings-approval-add-client"
          >
            Add a rule
          </button>
        </div>
        {typedWarning ? (
          <p className="field-error" id="settings-approval-new-client-warning" role="status" data-testid="settings-approval-new-client-warning">
            {typedWarning}
          </p>
        ) : null}
        <FieldError id="settings-approval-clients" error={errors.perClient} />
      </div>
      <label className="choice choice-block">
        <input
          type="checkbox"
          checked={draft.askWritableFolders}
          onChange={(e) => edit({ askWritableFolders: e.target.checked })}
          data-testid="settings-approval-writable-folders"
        />
        <span>
          <strong>Always ask before code runs in a session that can change a folder of this computer</strong>
          <span className="muted small block">
            For sessions with a folder shared “read and write”, whatever the rule above says. Folders shared with “Changes need my OK” are not
            asked about: nothing in them changes until you apply it (session → Changes).
          </span>
        </span>
      </label>
      <label className="choice choice-block">
        <input type="checkbox" checked={draft.askInChat} onChange={(e) => edit({ askInChat: e.target.checked })} data-testid="settings-approval-ask-in-chat" />
        <span>
          <strong>Also ask in the assistant’s chat, when it can show the question</strong>
          <span className="muted small block">
            You can then answer there or here; whichever you answer first decides. Assistants that cannot show questions are only asked here.
          </span>
        </span>
      </label>
      <label className="choice choice-block">
        <input
          type="checkbox"
          checked={draft.askSecretSessions}
          onChange={(e) => edit({ askSecretSessions: e.target.checked })}
          data-testid="settings-approval-secret-sessions"
        />
        <span>
          <strong>Always ask before code runs in a session that can use a secret</strong>
          <span className="muted small block">For sessions of an environment you gave a secret to (Settings → Secrets), whatever the rule above says.</span>
        </span>
      </label>
      <Field
        id="settings-approval-timeout"
        label="How long a request waits for you (seconds)"
        hint="When no one answers in time, the request counts as denied."
        value={draft.approvalTimeout}
        inputMode="numeric"
        onChange={(approvalTimeout) => edit({ approvalTimeout })}
        error={errors.approvalTimeout}
      />
    </SettingsSection>
  );
}
