import { useState } from 'react';
import type { ReactElement } from 'react';
import { isSandpitError } from '../../../../shared/api/errors';
import { PACKAGE_MANAGERS } from '../../../../shared/domain/package-managers';
import { BASES_BY_LANGUAGE, nameTakenMessage } from '../../../../shared/domain/environment';
import type { EnvironmentView as Environment, EnvironmentBase } from '../../../../shared/domain/environment';
import { DEFAULT_LIMITS } from '../../../../shared/domain/limits';
import { LANGUAGES } from '../../../../shared/domain/languages';
import type { Language } from '../../../../shared/domain/languages';
import { LANGUAGE_WORDS } from '../../lib/format';
import { useAppStore, useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { Field } from '../settings/settings-section';
import { ChipInput } from './chip-input';
import { SYSTEM_INSTALLERS, draftLimits, installerFor, invalidChip, toCreateInput, toPatch, withLanguage } from './environment-draft';
import type { EnvironmentDraft, Installer } from './environment-draft';
import { BASE_WORDS } from './environment-words';
import { FolderChoice } from './folder-choice';
import { IsolationChoice } from './isolation-choice';
import { NetworkChoice } from './network-choice';
import { SecretChoice, saveSecretChoice } from './secret-choice';


interface EnvironmentFormProps {
  /** The environment being edited; absent when creating one. */
  editing?: Environment;
  initial: EnvironmentDraft;
  /** Lines of an imported file Sandpit does not install. */
  notes?: string[];
  onSaved: (env: Environment, build: boolean) => void;
  onCancel: () => void;
}

/** Create or edit an environment: name, language, base, packages, network, limits. */
export function EnvironmentForm({ editing, initial, notes, onSaved, onCancel }: EnvironmentFormProps): ReactElement {
  const client = useClient();
  const [draft, setDraft] = useState<EnvironmentDraft>(initial);
  const [error, setError] = useState<string | undefined>();
  /** The chip the server refused, and its message. */
  const [bad, setBad] = useState<{ installer: Installer; value: string; message: string } | undefined>();
  const [saving, setSaving] = useState(false);
  /** The secrets chosen for it (issue 18); undefined while no box was changed. */
  const [secretNames, setSecretNames] = useState<string[] | undefined>();
  /** The server's words when the language cannot run on the chosen starting point, shown under it. */
  const [baseProblem, setBaseProblem] = useState<string | undefined>();
  const failed = editing?.build?.state === 'failed' ? editing.build.failedPackage : undefined;
  const installer = installerFor(draft.language);
  const change = (patch: Partial<EnvironmentDraft>): void => setDraft((d) => ({ ...d, ...patch }));
  const others = useAppStore('environments', (s) => s.environments).filter((e) => e.id !== editing?.id);
  // Refused at once, as the server would: an assistant picks an environment by its name.
  const [nameRefused, setNameRefused] = useState<string | undefined>();
  const nameProblem = nameTakenMessage(draft.name, others) ?? nameRefused;

  const save = async (build: boolean): Promise<void> => {
    const limits = draftLimits(draft);
    if ('invalid' in limits) {
      setError(limits.invalid);
      return;
    }
    if (!draft.name.trim()) {
      setError('Give the environment a name.');
      return;
    }
    if (nameProblem) return;
    setSaving(true);
    setError(undefined);
    setBad(undefined);
    setBaseProblem(undefined);
    try {
      const env = editing
        ? await client.call('environments.update', { environmentId: editing.id, patch: toPatch(draft, limits) })
        : await client.call('environments.create', toCreateInput(draft, limits));
      if (secretNames !== undefined) {
        try {
          await saveSecretChoice(client, env.id, secretNames);
        } catch (caught) {
          setError(`The environment is saved, but not the secrets it may use: ${plainError(caught)}`);
          // A new one exists now: it is edited from its card, never created twice.
          if (editing) return;
        }
      }
      onSaved(env, build);
    } catch (caught) {
      const message = plainError(caught);
      if (isSandpitError(caught, 'CONFLICT') && (caught.details as { field?: string } | undefined)?.field === 'name') {
        setNameRefused(message);
        return;
      }
      const fields = isSandpitError(caught, 'INVALID_INPUT') ? (caught.details as { fields?: unknown } | undefined)?.fields : undefined;
      if (Array.isArray(fields) && fields.includes('base')) {
        setBaseProblem(message.replace(/^Invalid (environment|change): (base: )?/, ''));
        return;
      }
      const chip = isSandpitError(caught, 'INVALID_INPUT') ? invalidChip(draft, message, caught.details) : undefined;
      setBad(chip ? { ...chip, message } : undefined);
      setError(chip ? undefined : message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="card form"
      data-testid="env-form"
      aria-labelledby="env-form-title"
      onSubmit={(event) => {
        event.preventDefault();
        void save(false);
      }}
    >
      <h2 id="env-form-title">{editing ? `Edit ${editing.name}` : 'New environment'}</h2>
      {notes && notes.length > 0 ? (
        <div className="notice notice-info" data-testid="env-import-notes">
          <div>
            <p>These lines of the imported file are not installed:</p>
            <ul>
              {notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="env-name" className="label">
          Name
        </label>
        <input
          id="env-name"
          type="text"
          value={draft.name}
          maxLength={64}
          onChange={(e) => {
            setNameRefused(undefined);
            change({ name: e.target.value });
          }}
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby={nameProblem ? 'env-name-error' : undefined}
          data-testid="env-name"
        />
        {nameProblem ? (
          <p className="field-error" id="env-name-error" role="alert" data-testid="env-name-error">
            {nameProblem}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="env-description" className="label">
          What it is for <span className="muted small">(optional)</span>
        </label>
        <input
          id="env-description"
          type="text"
          value={draft.description}
          maxLength={1000}
          onChange={(e) => change({ description: e.target.value })}
          data-testid="env-description"
        />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="env-language" className="label">
            Language
          </label>
          <select
            id="env-language"
            value={draft.language}
            onChange={(e) => setDraft((d) => withLanguage(d, e.target.value as Language))}
            data-testid="env-language"
          >
            {LANGUAGES.map((language) => (
              <option key={language} value={language}>
                {LANGUAGE_WORDS[language]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="env-base" className="label">
            Starting point
          </label>
          <select
            id="env-base"
            value={draft.base}
            onChange={(e) => change({ base: e.target.value as EnvironmentBase })}
            data-testid="env-base"
            aria-invalid={baseProblem ? true : undefined}
            aria-describedby={baseProblem ? 'env-base-error' : undefined}
          >
            {BASES_BY_LANGUAGE[draft.language].map((base) => (
              <option key={base} value={base}>
                {BASE_WORDS[base]}
              </option>
            ))}
          </select>
          {baseProblem ? (
            <p className="field-error" id="env-base-error" role="alert" data-testid="env-base-error">
              {baseProblem}
            </p>
          ) : null}
        </div>
      </div>
      <ChipInput
        id={`env-${installer}`}
        label={PACKAGE_MANAGERS[installer].label}
        hint={PACKAGE_MANAGERS[installer].hint}
        chips={draft[installer]}
        onChange={(chips) => change({ [installer]: chips })}
        invalid={bad?.installer === installer ? bad.value : undefined}
        invalidMessage={bad?.message}
        failed={failed}
        placeholder={PACKAGE_MANAGERS[installer].example}
        testId="env-packages"
      />
      {SYSTEM_INSTALLERS.map((system) => (
        <ChipInput
          key={system}
          id={`env-${system}`}
          label={PACKAGE_MANAGERS[system].label}
          hint={PACKAGE_MANAGERS[system].hint}
          chips={draft[system]}
          onChange={(chips) => change({ [system]: chips })}
          invalid={bad?.installer === system ? bad.value : undefined}
          invalidMessage={bad?.message}
          failed={failed}
          placeholder={PACKAGE_MANAGERS[system].example}
          testId={`env-${system}`}
        />
      ))}
      <NetworkChoice value={draft.network} onChange={(network) => change({ network })} />
      {draft.network === 'packages' || draft.allowedHosts.length > 0 ? (
        <ChipInput
          id="env-allowed-hosts"
          label="More hosts its sessions may reach"
          hint={
            draft.network === 'packages'
              ? 'Besides the package sites: a host name or *.domain, e.g. files.example.org. “Allow” in Network activity adds one here; remove it to block it again.'
              : 'Used only with “Package downloads only”: with the network choice above, these hosts are not reached.'
          }
          chips={draft.allowedHosts}
          onChange={(allowedHosts) => change({ allowedHosts })}
          placeholder="files.example.org"
          testId="env-allowed-hosts"
        />
      ) : null}
      {draft.network === 'packages' ? (
        <SecretChoice {...(editing ? { environmentId: editing.id } : {})} chosen={secretNames} onChange={setSecretNames} />
      ) : null}
      <IsolationChoice value={draft.isolation} onChange={(isolation) => change({ isolation })} />
      <FolderChoice value={draft.folders} onChange={(folders) => change({ folders })} />
      <fieldset className="choices">
        <legend className="label">Limits of each session (empty = the default)</legend>
        <div className="field-row">
          <Field
            id="env-memory"
            label="Memory (MB)"
            value={draft.memoryMb}
            placeholder={String(DEFAULT_LIMITS.memoryMb)}
            inputMode="decimal"
            onChange={(memoryMb) => change({ memoryMb })}
          />
          <Field
            id="env-cpus"
            label="Processor cores"
            value={draft.cpus}
            placeholder={String(DEFAULT_LIMITS.cpus)}
            inputMode="decimal"
            onChange={(cpus) => change({ cpus })}
          />
          <Field
            id="env-timeout"
            label="Time per run (seconds)"
            value={draft.timeoutSeconds}
            placeholder={String(DEFAULT_LIMITS.timeoutMs / 1_000)}
            inputMode="decimal"
            onChange={(timeoutSeconds) => change({ timeoutSeconds })}
          />
          <Field
            id="env-workspace"
            label="Workspace (MB)"
            value={draft.workspaceMb}
            placeholder={String(DEFAULT_LIMITS.workspaceMb)}
            inputMode="decimal"
            onChange={(workspaceMb) => change({ workspaceMb })}
          />
        </div>
      </fieldset>
      {error ? (
        <p className="field-error" role="alert" data-testid="env-form-error">
          {error}
        </p>
      ) : null}
      <div className="modal-actions">
        <button type="button" className="secondary" onClick={onCancel} data-testid="env-cancel">
          Cancel
        </button>
        <button type="submit" className="secondary" disabled={saving || nameProblem !== undefined} data-testid="env-save">
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={saving || nameProblem !== undefined} onClick={() => void save(true)} data-testid="env-save-build">
          Save and build
        </button>
      </div>
    </form>
  );
}
