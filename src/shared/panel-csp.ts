/** The panel's Content-Security-Policy: sent as a header for the panel's files (Electron and web mode) and repeated in index.html's meta tag. */
export const PANEL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  // Previews (issue 17) are framed from their own origins on this computer's loopback, a port each.
  "frame-src 'self' blob: data: http://127.0.0.1:*",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');
