import { app, dialog, session } from 'electron';
import type { BrowserWindow } from 'electron';
import type { Sandpit } from '../core/app';
import { bootSandpit } from '../core/boot';
import { createLogger } from '../core/log';
import { serveHttp } from '../core/http/serve-http';
import { createMcpHttpMount } from '../core/mcp/http-mount';
import { appPaths } from './app-paths';
import { folderPicker } from './folder-picker';
import { keychainCipher } from './keychain-cipher';
import { registerIpc } from './ipc-adapter';
import { stopThenDispose } from './shutdown';
import type { StopStep } from './shutdown';
import { createTray } from './tray';
import type { SandpitTray } from './tray';
import { createMainWindow, hardenSession, trustedSenderCheck } from './window';

const log = createLogger({ app: 'sandpit', process: 'main' });
const paths = appPaths(app.getAppPath(), app.isPackaged);

interface Running {
  sandpit: Sandpit;
  tray?: SandpitTray;
  /** Stopped in order, each awaited, before the core is disposed. */
  stop: StopStep[];
}

let window: BrowserWindow | undefined;
let starting: Promise<Running | undefined> | undefined;
/** True once IPC is registered: no window exists before it can talk to the core. */
let ready = false;
let quit: 'no' | 'disposing' | 'done' = 'no';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function showWindow(): void {
  if (!ready || quit !== 'no') return;
  if (!window || window.isDestroyed()) {
    window = createMainWindow({ panel: paths.panel, preloadFile: paths.preloadFile, iconPath: paths.iconPath, log });
    return;
  }
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function startTray(sandpit: Sandpit): { tray?: SandpitTray; stop: () => void } {
  try {
    const tray = createTray({ iconPath: paths.iconPath, onShow: showWindow, onQuit: () => app.quit() });
    const update = (): void =>
      tray.setRunning(sandpit.sessions.list().filter((s) => s.state !== 'stopped' && s.state !== 'failed' && s.state !== 'paused').length);
    const offUpdated = sandpit.bus.on('session.updated', update);
    const offRemoved = sandpit.bus.on('session.removed', update);
    update();
    const stop = (): void => {
      offUpdated();
      offRemoved();
      tray.destroy();
    };
    return { tray, stop };
  } catch (error) {
    log.warn('no tray icon on this desktop', { error: message(error) });
    return { stop: () => undefined };
  }
}

async function start(): Promise<Running> {
  hardenSession(session.defaultSession, paths.panel);
  // The same start-up as `sandpit serve`, with the images planned from the app's own executor-image folder.
  const keychain = keychainCipher();
  const { sandpit, notes } = await bootSandpit({ logger: log, imagesDir: paths.imagesDir, ...(keychain ? { secretCipher: keychain } : {}) });
  for (const note of notes) log.warn('sandbox image missing', { note });
  const { config } = sandpit;
  const stopIpc = registerIpc(
    // The one method the desktop app answers itself: its folder dialog (a browser has none).
    { ...sandpit.api, 'folders.pick': folderPicker(() => window) },
    sandpit.bus,
    trustedSenderCheck(() => window, paths.panel),
  );
  const { tray, stop: stopTray } = startTray(sandpit);
  // MCP over HTTP (and REST, and the web panel) for assistants, as `sandpit serve` offers it.
  const mcp = createMcpHttpMount(sandpit);
  const served = await serveHttp(sandpit, config.port, [mcp.route]).catch((error: unknown) => {
    log.error('the HTTP/MCP server did not start; assistants can still use "sandpit mcp"', { error: message(error) });
    return undefined;
  });
  ready = true;
  showWindow();
  log.info('sandpit started', { home: config.home, images: config.images, url: served?.http.url });
  const stop: StopStep[] = [
    { what: 'IPC', stop: stopIpc },
    { what: 'the tray', stop: stopTray },
    { what: 'the HTTP server', stop: async () => served?.close() },
    { what: 'MCP sessions', stop: () => mcp.close() },
  ];
  return { sandpit, tray, stop };
}

async function shutdown(): Promise<void> {
  const running = await starting?.catch(() => undefined);
  if (!running) return;
  await stopThenDispose(running.stop, () => running.sandpit.dispose(), log);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // With a tray icon Sandpit keeps serving assistants when its window is closed. Not on Linux: there
  // the tray may be invisible (no status notifier), which would leave no way to quit.
  app.on('window-all-closed', () => {
    void starting?.then((running) => {
      if (!running?.tray || process.platform === 'linux') app.quit();
    });
  });
  app.on('before-quit', (event) => {
    if (quit === 'done') return;
    event.preventDefault();
    if (quit === 'disposing') return;
    quit = 'disposing';
    void shutdown().then(() => {
      quit = 'done';
      app.quit();
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  starting = app.whenReady().then(start);
  starting.catch((error: unknown) => {
    log.error('failed to start', { error: message(error) });
    dialog.showErrorBox('Sandpit could not start', message(error));
    app.quit();
  });
}
