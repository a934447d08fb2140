/** The panel's Content-Security-Policy: sent as a header for the panel's files (Electron and web mode) and repeated in index.html's meta tag. */
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
