import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReactElement } from 'react';
import type { FileEntry } from '../../../../shared/domain/artifact';
import { EmptyState } from '../../components/empty-state';
import { baseName, downloadBase64, downloadText, readFileBase64 } from '../../lib/download';
import { formatBytes } from '../../lib/format';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/** Where a path's parent is: "a/b/c" → "a/b", "a" → "". */
function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

/** The session's /workspace: browse folders, upload a file into the open folder, download a file. */
export function FileBrowser({ sessionId, disabled }: { sessionId: string; disabled: boolean }): ReactElement {
  const client = useClient();
  const [folder, setFolder] = useState('');
  const [entries, setEntries] = useState<FileEntry[] | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const load = useCallback(async (): Promise<void> => {
    try {
      const listing = await client.call('files.list', { sessionId, path: folder });
      setEntries(listing.entries);
      setMessage(undefined);
    } catch (error) {
      setEntries([]);
      setMessage(plainError(error));
    }
  }, [client, sessionId, folder]);

  useEffect(() => {
    if (!disabled) void load();
  }, [load, disabled]);

  // A run may have written files: the list follows (after each run of this session, whoever ran it).
  useEffect(
    () =>
      client.subscribe((event) => {
        if (event.name === 'execution.done' && event.payload.sessionId === sessionId && !disabled) void load();
      }),
    [client, sessionId, load, disabled],
  );

  const upload = async (files: FileList | null): Promise<void> => {
    if (!files || files.length === 0) return;
    setBusy(true);
    try {
      for (const file of Array.from(files)) {
        const path = folder ? `${folder}/${file.name}` : file.name;
        await client.call('files.write', { sessionId, path, content: await readFileBase64(file), encoding: 'base64' });
      }
      setMessage(files.length === 1 ? `Uploaded ${files[0]!.name}.` : `Uploaded ${files.length} files.`);
      await load();
    } catch (error) {
      setMessage(`Upload failed: ${plainError(error)}`);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const download = async (path: string): Promise<void> => {
    try {
      const file = await client.call('files.read', { sessionId, path, maxBytes: 64 * 1024 * 1024 });
      if (file.encoding === 'base64') downloadBase64(baseName(path), file.mime, file.content);
      else downloadText(baseName(path), file.mime, file.content);
    } catch (error) {
      setMessage(`Download failed: ${plainError(error)}`);
    }
  };

  return (
    <div data-testid="session-files">
      <div className="row">
        <p className="crumbs">
          <span className="muted">Folder:</span>{' '}
          <code data-testid="files-folder">/workspace{folder ? `/${folder}` : ''}</code>
        </p>
        <span className="actions">
          <button
            type="button"
            className="secondary small"
            onClick={() => void load()}
            disabled={disabled}
            data-testid="files-refresh"
          >
            Refresh
          </button>
          <label className={`button-like small${disabled || busy ? ' disabled' : ''}`}>
            {busy ? 'Uploading…' : 'Upload a file'}
            <input
              ref={input}
              type="file"
              multiple
              className="visually-hidden"
              disabled={disabled || busy}
              onChange={(event) => void upload(event.target.files)}
              data-testid="files-upload"
            />
          </label>
        </span>
      </div>
      {message ? (
        <p className="muted small" role="status" data-testid="files-message">
          {message}
        </p>
      ) : null}
      {disabled ? (
        <EmptyState testId="files-unavailable">The files can be seen while the session is running.</EmptyState>
      ) : entries === undefined ? (
        <p className="muted">Loading files…</p>
      ) : (
        <ul className="list" data-testid="files-list">
          {folder ? (
            <li className="list-row">
              <button
                type="button"
                className="link-button"
                onClick={() => setFolder(parentOf(folder))}
                data-testid="files-up"
              >
                ↑ Up one folder
              </button>
            </li>
          ) : null}
          {entries.length === 0 ? (
            <li>
              <EmptyState testId="files-empty">
                This folder is empty. Upload a file, or run code that writes one (for example to /workspace/result.csv).
              </EmptyState>
            </li>
          ) : (
            entries.map((entry) => (
              <li key={entry.path} className="list-row" data-testid="file-row" data-path={entry.path}>
                {entry.type === 'directory' ? (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => setFolder(entry.path)}
                    data-testid="file-open-folder"
                  >
                    📁 {baseName(entry.path)}/
                  </button>
                ) : (
                  <span>
                    {baseName(entry.path)} <span className="muted small">{formatBytes(entry.size)}</span>
                  </span>
                )}
                {entry.type === 'file' ? (
                  <button
                    type="button"
                    className="secondary small"
                    onClick={() => void download(entry.path)}
                    data-testid="file-download"
                  >
                    Download
                  </button>
                ) : null}
              </li>
            ))
          )}
        </ul>
      )}
    </div>
  );
}
