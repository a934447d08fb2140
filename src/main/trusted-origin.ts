import { pathToFileURL } from 'node:url';

export interface PanelLocation {
  /** Absolute path of the built panel, `out/renderer/index.html`. */
  rendererFile: string;
  /** The electron-vite dev server, only when it is plain http on localhost (see devServerUrl). */
  devUrl?: string;
}

/** ELECTRON_RENDERER_URL when it names a local http dev server; anything else (remote, https, other host) is ignored. */
export function devServerUrl(raw: string | undefined, isPackaged: boolean): string | undefined {
  if (isPackaged || !raw) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' && url.hostname === 'localhost' && url.username === '' && url.password === ''
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a frame URL is our panel: the built index.html over file://, or a page of our local dev server. */
export function isPanelUrl(raw: string, location: PanelLocation): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'file:') {
    const panel = pathToFileURL(location.rendererFile);
    return url.host === panel.host && url.pathname === panel.pathname;
  }
  if (location.devUrl) return url.protocol === 'http:' && url.origin === new URL(location.devUrl).origin;
  return false;
}
