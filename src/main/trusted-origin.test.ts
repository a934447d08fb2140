import { describe, expect, it } from 'vitest';
import { devServerUrl, isPanelUrl } from './trusted-origin';

describe('devServerUrl', () => {
  it('accepts only a plain http localhost URL, and never in a packaged app', () => {
    expect(devServerUrl('http://localhost:5173', false)).toBe('http://localhost:5173/');
    expect(devServerUrl('http://localhost:5173', true)).toBeUndefined();
    for (const bad of [
      'https://localhost:5173',
      'http://example.com:5173',
      'http://localhost.evil.com/',
      'http://user:pw@localhost:5173',
      'file:///etc/passwd',
      'not a url',
      '',
      undefined,
    ]) {
      expect(devServerUrl(bad, false), String(bad)).toBeUndefined();
    }
  });
});

describe('isPanelUrl', () => {
  const panel = { rendererFile: '/opt/Sandpit/resources/app.asar/out/renderer/index.html' };

  it('matches the built panel file, with any fragment or query', () => {
    expect(isPanelUrl('file:///opt/Sandpit/resources/app.asar/out/renderer/index.html', panel)).toBe(true);
    expect(isPanelUrl('file:///opt/Sandpit/resources/app.asar/out/renderer/index.html#token=x', panel)).toBe(true);
  });

  it('rejects other files, remote pages and the dev server when there is none', () => {
    expect(isPanelUrl('file:///opt/Sandpit/resources/app.asar/out/renderer/other.html', panel)).toBe(false);
    expect(isPanelUrl('file:///tmp/index.html', panel)).toBe(false);
    expect(isPanelUrl('file://evil-host/opt/Sandpit/resources/app.asar/out/renderer/index.html', panel)).toBe(false);
    expect(isPanelUrl('https://example.com/', panel)).toBe(false);
    expect(isPanelUrl('http://localhost:5173/', panel)).toBe(false);
    expect(isPanelUrl('about:blank', panel)).toBe(false);
    expect(isPanelUrl('', panel)).toBe(false);
  });

  it('matches pages of the local dev server only by its exact origin', () => {
    const dev = { ...panel, devUrl: 'http://localhost:5173/' };
    expect(isPanelUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isPanelUrl('http://localhost:5173/src/main.tsx', dev)).toBe(true);
    expect(isPanelUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isPanelUrl('http://127.0.0.1:5173/', dev)).toBe(false);
  });
});
