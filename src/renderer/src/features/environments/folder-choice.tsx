import { useState } from 'react';
import type { ReactElement } from 'react';
import type { FolderMode } from '../../../../shared/domain/shared-folder';
import { SHARED_FOLDERS_DIR } from '../../../../shared/domain/shared-folder';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';
import type { FolderDraft } from './environment-draft';
import { FOLDER_MODE_WORDS } from '../../../../shared/domain/shared-folder';

/**
 * Folders of this computer every session of the environment gets (checked when the environment is saved,
 * and again when each session starts). Such sessions start in a container of their own, never a ready one.
 */
export function FolderChoice({ value, onChange }: { value: FolderDraft[]; onChange: (folders: FolderDraft[]) => void }): ReactElement {
  const client = useClient();
  const desktop = typeof window !== 'undefined' && window.sandpit !== undefined;
  const [path, setPath] = useState('');
  const [mode, setMode] = useState<FolderMode>('ro');
  const [problem, setProblem] = useState<string | undefined>();
  const add = (): void => {
    if (path.trim() === '') return;
    onChange([...value, { hostPath: path.trim(), mode }]);
    setPath('');
    setMode('ro');
  };
  return (
    <fieldset className="field" data-testid="env-folders">
      <legend className="label">Folders of this computer</legend>
      <p className="muted small">
        Every session of this environment sees these under {SHARED_FOLDERS_DIR} (Sandpit checks each one when you save). Its sessions start a
        little slower: a sandbox with a folder is made for it.
      </p>
      {value.length ? (
        <ul className="plain-list">
          {value.map((f, i) => (
            <li key={`${f.hostPath}-${i}`} data-testid="env-folder" data-mode={f.mode}>
              <code>{f.hostPath}</code> ({FOLDER_MODE_WORDS[f.mode]}){' '}
              <button type="button" className="link-button" onClick={() => onChange(value.filter((_, j) => j !== i))} data-testid="env-folder-remove">
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="inline-add">
        <input
          type="text"
          className="wide"
          aria-label="Folder on this computer"
          placeholder="The full path, such as ~/Documents/project"
          value={path}
          spellCheck={false}
          onChange={(e) => setPath(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
          data-testid="env-folder-path"
        />
        {desktop ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              client.call('folders.pick', {}).then(
                (picked) => {
                  if (picked.hostPath) setPath(picked.hostPath);
                },
                (error: unknown) => setProblem(plainError(error)),
              );
            }}
            data-testid="env-folder-pick"
          >
            Choose…
          </button>
        ) : null}
        <select aria-label="What sessions may do with it" value={mode} onChange={(e) => setMode(e.target.value as FolderMode)} data-testid="env-folder-mode">
          <option value="ro">Only read</option>
          <option value="rw">Read and change</option>
          <option value="review">Change, with my OK for each change</option>
        </select>
        <button type="button" className="secondary" disabled={path.trim() === ''} onClick={add} data-testid="env-folder-add">
          Add folder
        </button>
      </div>
      {problem ? <p className="field-error">{problem}</p> : null}
    </fieldset>
  );
}
