import { useEffect } from 'react';
import type { ReactElement } from 'react';
import type { Artifact } from '../../../../shared/domain/artifact';
import { isFramedMime, isImageMime } from '../../components/display-view';
import { dataUrl } from '../../lib/bytes';
import { baseName } from '../../lib/download';
import { formatAge, formatBytes } from '../../lib/format';
import { useAppStore } from '../../stores/panel-context';

/** Pictures up to this size get a thumbnail in the gallery; larger ones only in the detail view. */
const THUMBNAIL_MAX_BYTES = 3 * 1024 * 1024;

function kindWord(mime: string): string {
  if (mime === 'text/html') return 'HTML';
  if (mime === 'image/svg+xml') return 'SVG';
  if (mime.startsWith('image/')) return 'Picture';
  if (mime.startsWith('text/') || mime.includes('json')) return 'Text';
  return 'File';
}

function Thumbnail({ artifact }: { artifact: Artifact }): ReactElement {
  const read = useAppStore('artifacts', (s) => s.read);
  const content = useAppStore('artifacts', (s) => s.contents[artifact.sha256]);
  const wanted = isImageMime(artifact.mime) && artifact.size <= THUMBNAIL_MAX_BYTES;
  useEffect(() => {
    if (wanted) void read(artifact.sha256);
  }, [wanted, read, artifact.sha256]);
  if (wanted && content?.state === 'ready') {
    return (
      <img src={dataUrl(artifact.mime, content.base64)} alt="" className="thumb-img" data-testid="artifact-thumb" />
    );
  }
  return (
    <span className="thumb-kind" aria-hidden="true">
      {wanted && content?.state !== 'error' ? '…' : kindWord(artifact.mime)}
      {isFramedMime(artifact.mime) ? <span className="thumb-note">shown safely</span> : null}
    </span>
  );
}

/** One artifact in the gallery; opens its detail view. */
export function ArtifactCard({
  artifact,
  sessionName,
  now,
  onOpen,
}: {
  artifact: Artifact;
  /** Whose file it is, in the person's words. */
  sessionName: string;
  now: number;
  onOpen: () => void;
}): ReactElement {
  return (
    <li className="artifact" data-testid="artifact-card" data-sha={artifact.sha256}>
      <button
        type="button"
        className="artifact-button"
        onClick={onOpen}
        aria-label={`Open ${artifact.path}`}
        data-testid="artifact-open"
      >
        <span className="thumb">
          <Thumbnail artifact={artifact} />
        </span>
        <span className="artifact-name" title={artifact.path}>
          {baseName(artifact.path)}
        </span>
        <span className="muted small artifact-session" data-testid="artifact-session">
          {sessionName}
        </span>
        <span className="muted small">
          {formatBytes(artifact.size)} · {formatAge(artifact.createdAt, now)}
        </span>
      </button>
    </li>
  );
}
