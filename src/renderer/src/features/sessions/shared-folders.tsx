import { useState } from 'react';
import type { FormEvent, ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import type { FolderMode } from '../../../../shared/domain/shared-folder';
import { SHARED_FOLDERS_DIR } from '../../../../shared/domain/shared-folder';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

const MODE_WORDS: Record<FolderMode, string> = {
  ro: 'Read-only',
  rw: 'Read and write',
  review: 'Changes need my OK',
};

/**
 * The folders of this computer a session has, and a form to share one: the desktop app opens its folder
 * picker, a browser takes a typed path (Sandpit checks it and says why when it refuses). Adding or
 * removing a folder starts the sandbox again: variables are lost, /workspace stays.
 */
export function SharedFolders({ session, disabled }: { session: SessionInfo; disabled: boolean }): ReactElement {
  const client = useClient();
  const desktop = typeof window !== 'undefined' && window.sandpit !== undefined;
  const [hostPath, setHostPath] = useState('');
  const [mode, setMode] = useState<FolderMode>('ro');
  const [mountPath, setMountPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();

  const run = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    setBusy(true);
    setMessage(undefined);
    try {
      await work();
      setMessage({ text: done, error: false });
      return true;
    } catch (error) {
      setMessage({ text: plainError(error), error: true });
      return false;
    } finally {
      setBusy(false);
    }
  };

  const share = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const folder = { hostPath: hostPath.trim(), mode, ...(mountPath.trim() ? { mountPath: mountPath.trim() } : {}) };
    const ok = await run(
      () => client.call('sessions.addFolder', { sessionId: session.id, folder }),
      'Shared. The sandbox started again with the folder: variables were reset, the files in /workspace were kept.',
    );
    if (ok) {
      setHostPath('');
      setMountPath('');
      setMode('ro');
    }
  };

  const pick = async (): Promise<void> => {
    try {
      const picked = await client.call('folders.pick', {});
      if (picked.hostPath) setHostPath(picked.hostPath);
    } catch (error) {
      setMessage({ text: plainError(error), error: true });
    }
  };

  return (
    <div data-testid="shared-folders">
      <p className="muted">
        Folders of this computer this session can see, under {SHARED_FOLDERS_DIR}. Assistants see them too, but only you can add one.
        Sharing or removing a folder starts the sandbox again: variables are reset, files in /workspace stay.
      </p>
      {session.folders.length === 0 ? (
        <p data-testid="shared-folders-empty">No folders are shared with this session.</p>
      ) : (
        <ul className="plain-list" data-testid="shared-folder-list">
          {session.folders.map((f) => (
            <li key={f.mountPath} data-testid="shared-folder" data-mount-path={f.mountPath} data-mode={f.mode}>
              <code data-testid="shared-folder-host">{f.hostPath}</code> → <code data-testid="shared-folder-mount">{f.mountPath}</code>{' '}
              <span className={f.mode === 'rw' ? 'badge badge-busy' : 'badge'}>{MODE_WORDS[f.mode]}</span>{' '}
              <button
                type="button"
                className="link-button"
                disabled={busy || disabled}
                onClick={() => void run(() => client.call('sessions.removeFolder', { sessionId: session.id, mountPath: f.mountPath }), `Stopped sharing ${f.hostPath}.`)}
                data-testid="shared-folder-remove"
              >
                Stop sharing
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(event) => void share(event)} data-testid="share-folder-form">
        <label className="field">
          <span className="label">Folder on this computer</span>
          <span className="inline-add">
            <input
              type="text"
              className="wide"
              value={hostPath}
              onChange={(event) => setHostPath(event.target.value)}
              placeholder={desktop ? 'Choose a folder, or type its full path' : 'The full path, such as ~/Documents/project'}
              spellCheck={false}
              data-testid="share-folder-path"
            />
            {desktop ? (
              <button type="button" className="secondary" onClick={() => void pick()} disabled={busy} data-testid="share-folder-pick">
                Choose…
              </button>
            ) : null}
          </span>
        </label>
        <fieldset className="field">
          <legend className="label">The session may</legend>
          {(['ro', 'rw', 'review'] as const).map((m) => (
            <label key={m}>
              <input type="radio" name="share-mode" checked={mode === m} onChange={() => setMode(m)} data-testid={`share-folder-mode-${m}`} />{' '}
              {m === 'ro'
                ? 'Only read its files (safest)'
                : m === 'rw'
                  ? 'Read and change its files — changes reach this computer'
                  : 'Changes need my OK — the session changes a copy; you review each change (session → Changes) and apply it'}
            </label>
          ))}
        </fieldset>
        <details>
          <summary>Where it appears</summary>
          <label className="field">
            <span className="label">Place in the sandbox (under /workspace)</span>
            <input type="text" value={mountPath} onChange={(event) => setMountPath(event.target.value)} placeholder={`${SHARED_FOLDERS_DIR}/<folder name>`} spellCheck={false} data-testid="share-folder-mount" />
          </label>
        </details>
        <div>
          <button type="submit" disabled={busy || disabled || hostPath.trim() === ''} data-testid="share-folder-submit">
            {busy ? 'Sharing…' : 'Share folder'}
          </button>
        </div>
      </form>
      {message ? (
        <p className={message.error ? 'field-error' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid={message.error ? 'share-folder-error' : 'share-folder-done'}>
          {message.text}
        </p>
      ) : null}
    </div>
  );
}
