import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PANEL_CSP, withPanelCsp } from './csp';

describe('panel CSP', () => {
  it('is the same in the header and in index.html', () => {
    const html = readFileSync(join(import.meta.dirname, '../renderer/index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(PANEL_CSP);
  });

  it('allows no inline or remote script, no plugins and no base tag', () => {
    expect(PANEL_CSP).toContain("script-src 'self';");
    expect(PANEL_CSP).toContain("object-src 'none'");
    expect(PANEL_CSP).toContain("base-uri 'none'");
    // The one wildcard: previews' frames, each on a loopback port of its own (issue 17).
    expect(PANEL_CSP.replace("frame-src 'self' blob: data: http://127.0.0.1:*", "frame-src 'self'")).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|\*/);
  });

  it('replaces any CSP the response had, whatever its case, and keeps the other headers', () => {
    expect(withPanelCsp({ 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] })).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [PANEL_CSP],
    });
    expect(withPanelCsp(undefined)).toEqual({ 'Content-Security-Policy': [PANEL_CSP] });
  });
});
