import { useState } from 'react';
import type { ReactElement } from 'react';
import type { ImportedDependencies } from '../../../../shared/domain/environment';
import { Modal } from '../../components/modal';
import { LANGUAGE_WORDS } from '../../lib/format';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import { emptyDraft, installerFor } from './environment-draft';
import type { EnvironmentDraft } from './environment-draft';

/** A form draft from an import, and the lines it leaves out (as notes for the form). */
export function draftFromImport(
  imported: ImportedDependencies,
  fileName: string,
): { draft: EnvironmentDraft; notes: string[] } {
  const draft = emptyDraft(imported.language);
  const installer = installerFor(imported.language);
  draft.name = imported.name ?? fileName.replace(/\.(txt|json|ya?ml)$/i, '');
  draft[installer] = [...(imported.packages[installer] ?? [])];
  const notes = imported.unsupported.map((u) => `Line ${u.line}: ${u.text} — ${u.reason}`);
  return { draft, notes };
}

/** Import requirements.txt, package.json or environment.yml: preview what would be installed, then create. */
export function ImportDialog({
  onClose,
  onUse,
}: {
  onClose: () => void;
  onUse: (draft: EnvironmentDraft, notes: string[]) => void;
}): ReactElement {
  const client = useClient();
  const [fileName, setFileName] = useState<string | undefined>();
  const [preview, setPreview] = useState<ImportedDependencies | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [reading, setReading] = useState(false);

  const pick = async (file: File | undefined): Promise<void> => {
    if (!file) return;
    setReading(true);
    setError(undefined);
    setPreview(undefined);
    setFileName(file.name);
    try {
      if (file.size > 1024 * 1024)
        throw new Error('The file is larger than 1 MB; a dependency list is usually much smaller.');
      setPreview(await client.call('environments.import', { fileName: file.name, content: await file.text() }));
    } catch (caught) {
      setError(plainError(caught));
    } finally {
      setReading(false);
    }
  };

  const packages = preview ? (preview.packages[installerFor(preview.language)] ?? []) : [];

  return (
    <Modal
      title="Import a dependency file"
      testId="import-dialog"
      onClose={onClose}
      wide
      actions={
        <button
          type="button"
          disabled={!preview || !fileName}
          onClick={() => {
            if (preview && fileName) {
              const { draft, notes } = draftFromImport(preview, fileName);
              onUse(draft, notes);
            }
          }}
          data-testid="import-use"
        >
          Create environment from it
        </button>
      }
    >
      <p>
        Pick a requirements.txt, package.json or environment.yml. You can check and change everything before it is
        saved.
      </p>
      <input
        type="file"
        accept=".txt,.json,.yml,.yaml"
        onChange={(e) => void pick(e.target.files?.[0])}
        data-testid="import-file"
      />
      {reading ? <p className="muted">Reading {fileName}…</p> : null}
      {error ? (
        <p className="field-error" role="alert" data-testid="import-error">
          {error}
        </p>
      ) : null}
      {preview ? (
        <div data-testid="import-preview">
          <p>
            <strong>{LANGUAGE_WORDS[preview.language]}</strong>
            {preview.name ? ` · “${preview.name}”` : ''} · {packages.length}{' '}
            {packages.length === 1 ? 'package' : 'packages'}
          </p>
          {packages.length > 0 ? (
            <ul className="chip-list" aria-label="Packages to install">
              {packages.map((p) => (
                <li key={p} className="chip">
                  {p}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No packages found in this file.</p>
          )}
          {preview.unsupported.length > 0 ? (
            <>
              <p>These lines will not be installed:</p>
              <ul className="unsupported" data-testid="import-unsupported">
                {preview.unsupported.map((u) => (
                  <li key={`${u.line}-${u.text}`}>
                    <code>
                      Line {u.line}: {u.text}
                    </code>{' '}
                    <span className="muted">— {u.reason}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </Modal>
  );
}
