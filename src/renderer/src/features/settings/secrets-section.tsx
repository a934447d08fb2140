import { useCallback, useEffect, useState } from 'react';
import type { FormEvent, ReactElement } from 'react';
import type { MethodOutput } from '../../../../shared/api/contract';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { SettingsSection } from './settings-section';

type SecretList = MethodOutput<'secrets.list'>;
type EnvironmentList = MethodOutput<'environments.list'>['environments'];

const EMPTY = { name: '', value: '', hosts: '', sendAs: 'header' as 'header' | 'basic', header: 'Authorization', template: 'Bearer {value}', username: '', environments: [] as string[] };

/** How a secret goes into a request, as its row says it. */
function sentAsWords(sendAs: SecretList['secrets'][number]['sendAs']): string {
  return sendAs.kind === 'basic' ? `as the password of ${sendAs.username ? `user ${sendAs.username}` : 'an empty user name'} (basic auth)` : `in the header ${sendAs.header}`;
}

const PROTECTION_WORDS: Record<SecretList['protection'], string> = {
  'os-keychain': "Values are locked with this computer's keychain.",
  'key-file': "Values are locked with a key file in Sandpit's data folder (secrets.key, readable by your user only).",
};

/**
 * Settings → Secrets (issue 18): keys a sandbox can use but never read. A value goes in once and is never shown
 * again (replace or delete only); the sandbox sees a placeholder, and Sandpit puts the value in for the secret's hosts.
 */
export function SecretsSection(): ReactElement {
  const client = useClient();
  const [list, setList] = useState<SecretList | undefined>();
  const [environments, setEnvironments] = useState<EnvironmentList>([]);
  const [form, setForm] = useState(EMPTY);
  const [replacing, setReplacing] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    Promise.all([client.call('secrets.list'), client.call('environments.list')]).then(
      ([secrets, envs]) => {
        setList(secrets);
        setEnvironments(envs.environments);
      },
      (error: unknown) => setProblem(plainError(error)),
    );
  }, [client]);
  useEffect(() => {
    load();
    // Another panel (a second window, the web panel) saved or deleted a secret, or an environment came or went.
    return client.subscribe((event) => {
      if (event.name === 'secrets.changed' || event.name === 'environment.updated' || event.name === 'environment.removed') load();
    });
  }, [client, load]);

  const save = (event: FormEvent): void => {
    event.preventDefault();
    setBusy(true);
    const hosts = form.hosts.split(/[\s,]+/).filter(Boolean);
    client
      .call('secrets.save', {
        name: form.name.trim(),
        ...(form.value ? { value: form.value } : {}),
        hosts,
        sendAs: form.sendAs === 'basic' ? { kind: 'basic', username: form.username } : { kind: 'header', header: form.header.trim(), template: form.template },
        environments: form.environments,
      })
      .then(
        () => {
          setForm(EMPTY);
          setReplacing(undefined);
          setProblem(undefined);
          load();
        },
        (error: unknown) => setProblem(plainError(error)),
      )
      .finally(() => setBusy(false));
  };
  const remove = (name: string): void => {
    client.call('secrets.delete', { name }).then(load, (error: unknown) => setProblem(plainError(error)));
  };
  const edit = (secret: SecretList['secrets'][number]): void => {
    setReplacing(secret.name);
    setForm({
      name: secret.name,
      value: '',
      hosts: secret.hosts.join(', '),
      sendAs: secret.sendAs.kind,
      header: secret.sendAs.kind === 'header' ? secret.sendAs.header : 'Authorization',
      template: secret.sendAs.kind === 'header' ? secret.sendAs.template : 'Bearer {value}',
      username: secret.sendAs.kind === 'basic' ? secret.sendAs.username : '',
      environments: secret.environments,
    });
  };
  const envName = (id: string): string => environments.find((e) => e.id === id)?.name ?? id;

  return (
    <SettingsSection
      title="Secrets"
      testId="settings-secrets"
      intro="Keys your assistant's code can use but never read. The sandbox only sees a stand-in (like sandpit-secret-openai); Sandpit puts the real value into requests to the secret's own hosts, for sessions of the environments you pick (network “packages only”). A secret is saved at once, not with “Save changes”."
    >
      {list ? <p className="muted small" data-testid="secrets-protection">{PROTECTION_WORDS[list.protection]}</p> : null}
      <ul data-testid="secrets-list">
        {list?.secrets.length === 0 ? <li className="muted">No secrets yet.</li> : null}
        {list?.secrets.map((s) => (
          <li key={s.name} data-testid="secret-row">
            <strong>{s.name}</strong> — sent to {s.hosts.join(', ')} {sentAsWords(s.sendAs)}; in the sandbox {s.envVar}={s.placeholder};{' '}
            {s.environments.length ? `used by ${s.environments.map(envName).join(', ')}` : 'used by no environment yet'}{' '}
            <button type="button" className="secondary small" onClick={() => edit(s)} data-testid="secret-replace">
              Change
            </button>{' '}
            <button type="button" className="secondary small" onClick={() => remove(s.name)} data-testid="secret-delete">
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={save} data-testid="secret-form">
        <label htmlFor="secret-name">Name</label>
        <input id="secret-name" value={form.name} disabled={replacing !== undefined} onChange={(e) => setForm({ ...form, name: e.target.value })} placeholder="openai" data-testid="secret-name" />
        <label htmlFor="secret-value">{replacing ? 'New value (leave empty to keep the saved one)' : 'Value'}</label>
        <input id="secret-value" type="password" autoComplete="off" value={form.value} onChange={(e) => setForm({ ...form, value: e.target.value })} data-testid="secret-value" />
        <label htmlFor="secret-hosts">Hosts it may be sent to</label>
        <input id="secret-hosts" value={form.hosts} onChange={(e) => setForm({ ...form, hosts: e.target.value })} placeholder="api.openai.com" data-testid="secret-hosts" />
        <label htmlFor="secret-send-as">How it is sent</label>
        <select id="secret-send-as" value={form.sendAs} onChange={(e) => setForm({ ...form, sendAs: e.target.value === 'basic' ? 'basic' : 'header' })} data-testid="secret-send-as">
          <option value="header">In a header</option>
          <option value="basic">As a password, with a user name (basic auth)</option>
        </select>
        {form.sendAs === 'basic' ? (
          <>
            <label htmlFor="secret-username">User name</label>
            <input id="secret-username" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} data-testid="secret-username" />
          </>
        ) : (
          <>
            <label htmlFor="secret-header">Header</label>
            <input id="secret-header" value={form.header} onChange={(e) => setForm({ ...form, header: e.target.value })} data-testid="secret-header" />
            <label htmlFor="secret-template">Header value ({'{value}'} is replaced by the secret)</label>
            <input id="secret-template" value={form.template} onChange={(e) => setForm({ ...form, template: e.target.value })} data-testid="secret-template" />
          </>
        )}
        <fieldset>
          <legend>Environments whose sessions may use it</legend>
          {environments.map((env) => (
            <label key={env.id}>
              <input
                type="checkbox"
                checked={form.environments.includes(env.id)}
                onChange={(e) => setForm({ ...form, environments: e.target.checked ? [...form.environments, env.id] : form.environments.filter((id) => id !== env.id) })}
                data-testid={`secret-env-${env.id}`}
              />{' '}
              {env.name}
            </label>
          ))}
        </fieldset>
        {problem ? (
          <p className="field-error" role="alert" data-testid="secret-problem">
            {problem}
          </p>
        ) : null}
        <button type="submit" disabled={busy} data-testid="secret-save">
          {replacing ? `Save “${replacing}”` : 'Add secret'}
        </button>
        {replacing ? (
          <button type="button" className="secondary" onClick={() => { setReplacing(undefined); setForm(EMPTY); }} data-testid="secret-cancel">
            Cancel
          </button>
        ) : null}
      </form>
    </SettingsSection>
  );
}
