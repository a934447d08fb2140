/** The panel's Content-Security-Policy: sent as a header for app files and repeated in index.html's meta tag. */
export const PANEL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self' blob: data:",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

export type ResponseHeaders = Record<string, string[]>;

/** The response headers with our CSP replacing any the response already had (header names are case-insensitive). */
export function withPanelCsp(headers: ResponseHeaders | undefined): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [PANEL_CSP];
  return out;
}
