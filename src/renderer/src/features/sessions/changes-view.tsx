import { useCallback, useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { MethodOutput } from '../../../../shared/api/contract';
import type { FolderChange, FolderChanges } from '../../../../shared/domain/folder-changes';
import { formatBytes } from '../../lib/format';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

type Diff = MethodOutput<'changes.diff'>;

const KIND_WORDS: Record<FolderChange['kind'], string> = {
  added: 'New file',
  changed: 'Changed',
  deleted: 'Deleted',
  renamed: 'Renamed',
};

/** Spaces and tabs made visible (when only whitespace changed, that is all there is to see). */
function visible(text: string | undefined, show: boolean): string {
  if (text === undefined) return '';
  return show ? text.replace(/ /g, '·').replace(/\t/g, '→') : text;
}

function sizeOf(c: FolderChange): string {
  if (c.kind === 'deleted') return c.before ? formatBytes(c.before.size) : '';
  if (!c.after) return '';
  return c.before && c.kind === 'changed'
    ? `${formatBytes(c.before.size)} → ${formatBytes(c.after.size)}`
    : formatBytes(c.after.size);
}

function DiffView({ diff }: { diff: Diff }): ReactElement {
  const { change } = diff;
  if (change.refused) return <p data-testid="change-refused">{change.refused.message}</p>;
  if (diff.beforeImage !== undefined || diff.afterImage !== undefined) {
    const mime = change.image ?? 'image/png';
    return (
      <div className="change-images" data-testid="change-images">
        <figure>
          <figcaption>Your folder</figcaption>
          {diff.beforeImage ? (
            <img
              alt={`${change.path} in your folder`}
              src={`data:${mime};base64,${diff.beforeImage}`}
              data-testid="change-image-before"
            />
          ) : (
            <p className="muted">No picture yet</p>
          )}
        </figure>
        <figure>
          <figcaption>The session’s version</figcaption>
          {diff.afterImage ? (
            <img
              alt={`${change.path} as the session left it`}
              src={`data:${mime};base64,${diff.afterImage}`}
              data-testid="change-image-after"
            />
          ) : (
            <p className="muted">Deleted</p>
          )}
        </figure>
      </div>
    );
  }
  if (!diff.rows) {
    return (
      <p data-testid="change-binary">
        A file that is not text: {sizeOf(change)}. Its content cannot be shown line by line.
      </p>
    );
  }
  return (
    <>
      {diff.whitespaceOnly ? (
        <p data-testid="change-whitespace-only">Only spaces, tabs or line ends differ: they are shown as · and →.</p>
      ) : null}
      <table className="diff-table" data-testid="change-diff">
        <thead>
          <tr>
            <th colSpan={2}>Your folder</th>
            <th colSpan={2}>The session’s version</th>
          </tr>
        </thead>
        <tbody>
          {diff.rows.map((r, i) => (
            <tr key={i} className={`diff-${r.kind}`} data-testid="diff-row" data-kind={r.kind}>
              <td className="diff-line">{r.leftLine ?? ''}</td>
              <td className="diff-text" data-testid="diff-left">
                <pre>{visible(r.left, diff.whitespaceOnly)}</pre>
              </td>
              <td className="diff-line">{r.rightLine ?? ''}</td>
              <td className="diff-text" data-testid="diff-right">
                <pre>{visible(r.right, diff.whitespaceOnly)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * The session's pending changes to folders shared with "Changes need my OK": each file with what happened
 * and its size, its diff side by side (pictures before and after), and Apply / Discard per file and for all.
 * Nothing reaches the person's folder before Apply.
 */
export function ChangesView({
  sessionId,
  onCount,
}: {
  sessionId: string;
  onCount?: (n: number) => void;
}): ReactElement {
  const client = useClient();
  const [folders, setFolders] = useState<FolderChanges[] | undefined>();
  const [open, setOpen] = useState<{ mountPath: string; path: string; diff?: Diff } | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // deletions this computer has no trash for: removed for good only once the person confirms
  const [confirmDelete, setConfirmDelete] = useState<{ mountPath: string; changes: FolderChange[] } | undefined>();

  const load = useCallback(async (): Promise<void> => {
    try {
      const listed = await client.call('changes.list', { sessionId });
      setFolders(listed.folders);
      onCount?.(listed.folders.reduce((n, f) => n + f.changes.length, 0));
    } catch (error) {
      setFolders([]);
      setMessage(plainError(error));
    }
  }, [client, sessionId, onCount]);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(
    () =>
      client.subscribe((event) => {
        if (event.name === 'execution.done' && event.payload.sessionId === sessionId) void load();
      }),
    [client, sessionId, load],
  );

  const show = async (mountPath: string, path: string): Promise<void> => {
    setOpen({ mountPath, path });
    try {
      const diff = await client.call('changes.diff', { sessionId, mountPath, path });
      setOpen({ mountPath, path, diff });
    } catch (error) {
      setMessage(plainError(error));
    }
  };

  const act = async (
    what: 'apply' | 'discard',
    folder: FolderChanges,
    changes: readonly FolderChange[],
    forGood = false,
  ): Promise<void> => {
    setBusy(true);
    try {
      const paths = changes.map((c) => c.path);
      const expect = Object.fromEntries(changes.map((c) => [c.path, c.after?.sha256 ?? null]));
      const { outcomes } =
        what === 'apply'
          ? await client.call('changes.apply', {
              sessionId,
              mountPath: folder.mountPath,
              paths,
              expect,
              ...(forGood ? { confirmDelete: true } : {}),
            })
          : await client.call('changes.discard', { sessionId, mountPath: folder.mountPath, paths });
      setMessage(outcomes.map((o) => `${o.path}: ${o.message}`).join('\n'));
      const noTrash = outcomes.filter((o) => o.needsConfirmation === true).map((o) => o.path);
      setConfirmDelete(
        noTrash.length
          ? { mountPath: folder.mountPath, changes: changes.filter((c) => noTrash.includes(c.path)) }
          : undefined,
      );
      setOpen(undefined);
      await load();
    } catch (error) {
      setMessage(plainError(error));
    } finally {
      setBusy(false);
    }
  };

  if (folders === undefined) return <p>Looking for changes…</p>;
  if (folders.length === 0) {
    return (
      <p data-testid="changes-none">
        This session has no folder shared with “Changes need my OK”. Share one (Shared folders) and the session’s
        changes to it wait here for you.
      </p>
    );
  }
  return (
    <div data-testid="changes-view">
      {message ? (
        <pre className="notice" role="status" data-testid="changes-message">
          {message}
        </pre>
      ) : null}
      {confirmDelete ? (
        <p className="warn" data-testid="changes-confirm-delete">
          No trash can take {confirmDelete.changes.map((c) => c.from ?? c.path).join(', ')}: applied now, it is deleted
          from your folder for good.{' '}
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => {
              const folder = folders.find((f) => f.mountPath === confirmDelete.mountPath);
              if (folder) void act('apply', folder, confirmDelete.changes, true);
            }}
            data-testid="changes-delete-for-good"
          >
            Delete for good
          </button>
        </p>
      ) : null}
      {folders.map((folder) => {
        const appliable = folder.changes.filter((c) => !c.refused && !c.conflict);
        return (
          <section key={folder.mountPath} data-testid="changes-folder" data-mount-path={folder.mountPath}>
            <h3>
              <code>{folder.hostPath}</code> —{' '}
              {folder.changes.length === 0
                ? 'no changes waiting'
                : `${folder.changes.length} change${folder.changes.length === 1 ? '' : 's'} waiting for your OK`}
            </h3>
            <p className="muted small" data-testid="changes-backend" data-backend={folder.backend}>
              {folder.backend === 'overlay'
                ? 'Your folder is only read: the session’s changes are kept above it (an overlay).'
                : `Your folder is only read: the session works on a copy of it${folder.backendReason ? ` (not an overlay: ${folder.backendReason})` : ''}.`}
            </p>
            <p className="muted small">
              Nothing here is in your folder until you apply it. A file you apply as deleted goes to your computer’s
              trash; where there is none, Sandpit asks first.
            </p>
            {folder.changes.length > 0 ? (
              <p>
                <button
                  type="button"
                  disabled={busy || appliable.length === 0}
                  onClick={() => void act('apply', folder, appliable)}
                  data-testid="changes-apply-all"
                >
                  Apply all ({appliable.length})
                </button>{' '}
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => void act('discard', folder, folder.changes)}
                  data-testid="changes-discard-all"
                >
                  Discard all
                </button>
              </p>
            ) : null}
            <ul className="plain-list">
              {folder.changes.map((c) => (
                <li key={c.path} data-testid="change" data-path={c.path} data-kind={c.kind}>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => void show(folder.mountPath, c.path)}
                    data-testid="change-show"
                  >
                    {c.path}
                  </button>{' '}
                  <span className="badge" data-testid="change-kind">
                    {KIND_WORDS[c.kind]}
                    {c.from ? ` from ${c.from}` : ''}
                  </span>{' '}
                  <span className="muted" data-testid="change-size">
                    {sizeOf(c)}
                  </span>
                  {c.conflict ? (
                    <span className="block warn" data-testid="change-conflict">
                      Conflict: {c.conflict} Apply is off so your version is kept; Discard gives the session your
                      version.
                    </span>
                  ) : null}
                  {c.refused ? (
                    <span className="block warn" data-testid="change-refused-why">
                      Never applied: {c.refused.message}
                    </span>
                  ) : null}{' '}
                  <button
                    type="button"
                    disabled={busy || !!c.refused || !!c.conflict}
                    onClick={() => void act('apply', folder, [c])}
                    data-testid="change-apply"
                  >
                    Apply
                  </button>{' '}
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => void act('discard', folder, [c])}
                    data-testid="change-discard"
                  >
                    Discard
                  </button>
                  {open?.mountPath === folder.mountPath && open.path === c.path ? (
                    <div className="change-detail">{open.diff ? <DiffView diff={open.diff} /> : <p>Loading…</p>}</div>
                  ) : null}
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
