import type { ReactElement } from 'react';
import { base64ToText, dataUrl } from '../lib/bytes';

/** Whether a mime type is shown only inside a sandboxed frame (it could carry scripts). */
export function isFramedMime(mime: string): boolean {
  return mime === 'text/html' || mime === 'image/svg+xml';
}

export function isImageMime(mime: string): boolean {
  return mime.startsWith('image/') && mime !== 'image/svg+xml';
}

export function isTextMime(mime: string): boolean {
  return mime.startsWith('text/') || /json|xml|javascript|csv|yaml|x-python|x-sh/.test(mime);
}

/**
 * HTML or SVG, shown ONLY in a frame with an empty sandbox: no scripts, no same origin, no forms, no
 * navigation of this page. Its content comes through srcdoc, never a URL.
 */
export function SandboxedFrame({
  html,
  title,
  testId,
}: {
  html: string;
  title: string;
  testId?: string;
}): ReactElement {
  return (
    <iframe
      className="sandboxed"
      sandbox=""
      srcDoc={html}
      title={title}
      data-testid={testId}
      referrerPolicy="no-referrer"
    />
  );
}

/** Content of a given mime type: pictures as pictures, HTML/SVG in a sandboxed frame, text as text. */
export function ContentView({
  mime,
  base64,
  text,
  title,
  testId,
}: {
  mime: string;
  base64?: string;
  text?: string;
  title: string;
  testId?: string;
}): ReactElement {
  if (isImageMime(mime) && base64 !== undefined) {
    return <img className="content-image" src={dataUrl(mime, base64)} alt={title} data-testid={testId} />;
  }
  const asText = text ?? (base64 !== undefined ? safeText(base64) : undefined);
  if (isFramedMime(mime) && asText !== undefined) {
    return <SandboxedFrame html={asText} title={title} testId={testId} />;
  }
  if (asText !== undefined && (isTextMime(mime) || text !== undefined)) {
    return (
      <pre className="content-text" data-testid={testId}>
        {asText}
      </pre>
    );
  }
  return (
    <p className="muted" data-testid={testId}>
      This kind of file ({mime}) cannot be shown here. Download it to open it.
    </p>
  );
}

function safeText(base64: string): string | undefined {
  try {
    return base64ToText(base64);
  } catch {
    return undefined;
  }
}
