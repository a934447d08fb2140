import { BrowserWindow, shell } from 'electron';
import type { Session, WebFrameMain } from 'electron';
import type { Logger } from '../core/log';
import { withPanelCsp } from './csp';
import { isPanelUrl } from './trusted-origin';
import type { PanelLocation } from './trusted-origin';

export interface MainWindowOptions {
  panel: PanelLocation;
  /** `out/preload/index.js`. */
  preloadFile: string;
  iconPath?: string;
  log: Logger;
}

/**
 * Session-wide rules for the panel: every permission request and check is refused, and the built panel
 * (file://) gets the strict CSP as a header too. index.html's meta tag carries the same policy, so it holds
 * wherever the header is not applied; the dev server's pages get only the meta tag, which electron.vite.config
 * relaxes in `serve` for React refresh and HMR.
 */
export function hardenSession(session: Session, panel: PanelLocation): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    const appFile = details.url.startsWith('file:') && isPanelUrl(details.url, panel);
    callback(appFile ? { responseHeaders: withPanelCsp(details.responseHeaders) } : {});
  });
}

/** A preview's address: plain HTTP on this computer's loopback, a port of its own (src/core/previews). */
export function isPreviewUrl(url: string): boolean {
  return /^http:\/\/127\.0\.0\.1:\d{1,5}\//.test(url);
}

/** The panel window: isolated, sandboxed, no Node, no navigation, no pop-ups; loads only our own panel. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { panel, log } = options;
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Sandpit',
    icon: options.iconPath,
    autoHideMenuBar: true,
    webPreferences: {
      preload: options.preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });

  const contents = window.webContents;
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    log.warn('blocked a navigation of the panel', { url });
  });
  contents.on('will-redirect', (event, url, _isInPlace, isMainFrame) => {
    // A preview's frame trades its link for its cookie with one redirect on its own origin (issue 17).
    if (isMainFrame === false && isPreviewUrl(url)) return;
    event.preventDefault();
    log.warn('blocked a redirect of the panel', { url });
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // "Open in a browser tab" of a preview: the system browser, never a window of the panel's.
    if (isPreviewUrl(url)) {
      shell.openExternal(url).catch((error: unknown) => log.warn('could not open a preview in the browser', { error: String(error) }));
      return { action: 'deny' };
    }
    log.warn('blocked a new window from the panel', { url });
    return { action: 'deny' };
  });
  window.once('ready-to-show', () => window.show());

  const loaded = panel.devUrl ? window.loadURL(panel.devUrl) : window.loadFile(panel.rendererFile);
  loaded.catch((error: unknown) =>
    log.error('failed to load the panel', { error: error instanceof Error ? error.message : String(error) }),
  );
  return window;
}

/** The IPC sender check: the call must come from this window's top frame while it shows our panel. */
export function trustedSenderCheck(
  getWindow: () => BrowserWindow | undefined,
  panel: PanelLocation,
): (frame: WebFrameMain | null | undefined) => boolean {
  return (frame) => {
    const window = getWindow();
    if (!frame || !window || window.isDestroyed()) return false;
    const top = window.webContents.mainFrame;
    return (
      frame.parent === null &&
      frame.processId === top.processId &&
      frame.routingId === top.routingId &&
      isPanelUrl(frame.url, panel)
    );
  };
}
