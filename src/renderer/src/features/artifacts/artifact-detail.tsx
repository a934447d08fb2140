import { useEffect } from 'react';
import type { ReactElement } from 'react';
import type { Artifact } from '../../../../shared/domain/artifact';
import { ContentView } from '../../components/display-view';
import { Modal } from '../../components/modal';
import { baseName, downloadBase64 } from '../../lib/download';
import { formatBytes, formatTime } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';
import { useSessionName } from '../sessions/session-name';

/** Largest artifact previewed in the panel; bigger ones are only downloaded. */
const PREVIEW_MAX_BYTES = 20 * 1024 * 1024;

/** An artifact's preview (HTML and SVG only in a sandboxed frame), details and download. */
export function ArtifactDetail({ artifact, onClose }: { artifact: Artifact; onClose: () => void }): ReactElement {
  const read = useAppStore('artifacts', (s) => s.read);
  const content = useAppStore('artifacts', (s) => s.contents[artifact.sha256]);
  const previewable = artifact.size <= PREVIEW_MAX_BYTES;
  const sessionName = useSessionName(artifact.sessionId, artifact.sessionName);
  useEffect(() => {
    if (previewable) void read(artifact.sha256);
  }, [previewable, read, artifact.sha256]);

  const download = async (): Promise<void> => {
    const got = content?.state === 'ready' ? content : await read(artifact.sha256);
    if (got.state === 'ready') downloadBase64(baseName(artifact.path), artifact.mime, got.base64);
  };

  return (
    <Modal
      title={baseName(artifact.path)}
      testId="artifact-detail"
      onClose={onClose}
      closeLabel="Close"
      wide
      actions={
        <button type="button" onClick={() => void download()} data-testid="artifact-download">
          Download
        </button>
      }
    >
      <div className="preview" data-testid="artifact-preview">
        {!previewable ? (
          <p className="muted">This file is too large to preview here. Download it to open it.</p>
        ) : !content || content.state === 'loading' ? (
          <p className="muted">Loading…</p>
        ) : content.state === 'error' ? (
          <p className="field-error">{content.message}</p>
        ) : (
          <ContentView mime={artifact.mime} base64={content.base64} title={artifact.path} testId="artifact-content" />
        )}
      </div>
      <dl className="facts">
        <div>
          <dt>Where it was</dt>
          <dd>
            <code>/workspace/{artifact.path}</code>
          </dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(artifact.size)}</dd>
        </div>
        <div>
          <dt>Made</dt>
          <dd>{formatTime(artifact.createdAt)}</dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd>{sessionName}</dd>
        </div>
      </dl>
      <details data-testid="artifact-details">
        <summary>Details</summary>
        <dl className="facts">
          <div>
            <dt>Kind of file</dt>
            <dd>
              <code>{artifact.mime}</code>
            </dd>
          </div>
          <div>
            <dt>Session id</dt>
            <dd>
              <code>{artifact.sessionId}</code>
            </dd>
          </div>
          {artifact.executionId ? (
            <div>
              <dt>Run id</dt>
              <dd>
                <code>{artifact.executionId}</code>
              </dd>
            </div>
          ) : null}
          <div>
            <dt>Check code</dt>
            <dd>
              <code className="wrap">{artifact.sha256}</code>
              <span className="muted small block">
                Computed from the file’s content (SHA-256): the same file always has the same code, and any change to it gives another one.
              </span>
            </dd>
          </div>
        </dl>
      </details>
    </Modal>
  );
}
