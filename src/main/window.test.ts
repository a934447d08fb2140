import { describe, expect, it, vi } from 'vitest';
import type { BrowserWindow, Session, WebFrameMain } from 'electron';
import { silentLogger } from '../core/log';
import { PANEL_CSP } from './csp';
import type { PanelLocation } from './trusted-origin';

type Listener = (...args: unknown[]) => unknown;

const electron = vi.hoisted(() => {
  class FakeWebContents {
    readonly listeners = new Map<string, Listener>();
    openHandler: Listener | undefined;
    mainFrame = { processId: 1, routingId: 2, parent: null, url: 'file:///app/out/renderer/index.html' };
    on(name: string, listener: Listener): void {
      this.listeners.set(name, listener);
    }
    setWindowOpenHandler(handler: Listener): void {
      this.openHandler = handler;
    }
  }
  class FakeBrowserWindow {
    static last: FakeBrowserWindow | undefined;
    readonly webContents = new FakeWebContents();
    loaded: string[] = [];
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      FakeBrowserWindow.last = this;
    }
    once(): void {}
    isDestroyed(): boolean {
      return false;
    }
    loadFile(file: string): Promise<void> {
      this.loaded.push(`file:${file}`);
      return Promise.resolve();
    }
    loadURL(url: string): Promise<void> {
      this.loaded.push(`url:${url}`);
      return Promise.resolve();
    }
  }
  const opened: string[] = [];
  const shell = { openExternal: (url: string): Promise<void> => (opened.push(url), Promise.resolve()) };
  return { FakeBrowserWindow, shell, opened };
});

vi.mock('electron', () => ({ BrowserWindow: electron.FakeBrowserWindow, shell: electron.shell }));

const { createMainWindow, hardenSession, trustedSenderCheck } = await import('./window');

const panel: PanelLocation = { rendererFile: '/app/out/renderer/index.html' };

function open(location: PanelLocation = panel): InstanceType<typeof electron.FakeBrowserWindow> {
  createMainWindow({ panel: location, preloadFile: '/app/out/preload/index.js', log: silentLogger });
  const window = electron.FakeBrowserWindow.last;
  if (!window) throw new Error('no window');
  return window;
}

describe('createMainWindow', () => {
  it('uses isolated, sandboxed, Node-free web preferences with our preload', () => {
    expect(open().options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('loads the built panel file, or the local dev server when one is given', () => {
    expect(open().loaded).toEqual(['file:/app/out/renderer/index.html']);
    expect(open({ ...panel, devUrl: 'http://localhost:5173/' }).loaded).toEqual(['url:http://localhost:5173/']);
  });

  it('blocks every navigation, redirect, webview and new window', () => {
    const contents = open().webContents;
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const event = { preventDefault: vi.fn() };
      contents.listeners.get(name)?.(event, 'https://example.com/');
      expect(event.preventDefault, name).toHaveBeenCalled();
    }
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
  });

  it("lets a preview's frame take its one redirect, and opens a preview in the system browser, never in a window of its own", () => {
    const contents = open().webContents;
    const inFrame = { preventDefault: vi.fn() };
    contents.listeners.get('will-redirect')?.(inFrame, 'http://127.0.0.1:41234/', false, false);
    expect(inFrame.preventDefault).not.toHaveBeenCalled();
    const mainFrame = { preventDefault: vi.fn() };
    contents.listeners.get('will-redirect')?.(mainFrame, 'http://127.0.0.1:41234/', false, true);
    expect(mainFrame.preventDefault).toHaveBeenCalled();
    expect(contents.openHandler?.({ url: 'http://127.0.0.1:41234/?sandpit_preview=abc' })).toEqual({ action: 'deny' });
    expect(electron.opened).toEqual(['http://127.0.0.1:41234/?sandpit_preview=abc']);
  });
});

describe('hardenSession', () => {
  function harden(): { permission: Listener; check: Listener; headers: Listener } {
    const captured: Partial<Record<'permission' | 'check' | 'headers', Listener>> = {};
    const session = {
      setPermissionRequestHandler: (l: Listener) => (captured.permission = l),
      setPermissionCheckHandler: (l: Listener) => (captured.check = l),
      webRequest: { onHeadersReceived: (l: Listener) => (captured.headers = l) },
    } as unknown as Session;
    hardenSession(session, panel);
    const { permission, check, headers } = captured;
    if (!permission || !check || !headers) throw new Error('handlers not set');
    return { permission, check, headers };
  }

  it('denies every permission request and check', () => {
    const { permission, check } = harden();
    for (const name of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      permission({}, name, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(check({}, name)).toBe(false);
    }
  });

  it('puts the strict CSP on the panel file and leaves other responses alone', () => {
    const { headers } = harden();
    const callback = vi.fn();
    headers(
      { url: 'file:///app/out/renderer/index.html', responseHeaders: { 'content-security-policy': ['default-src *'] } },
      callback,
    );
    expect(callback).toHaveBeenLastCalledWith({ responseHeaders: { 'Content-Security-Policy': [PANEL_CSP] } });
    headers({ url: 'http://127.0.0.1:7411/health', responseHeaders: {} }, callback);
    expect(callback).toHaveBeenLastCalledWith({});
    headers({ url: 'file:///tmp/other.html', responseHeaders: {} }, callback);
    expect(callback).toHaveBeenLastCalledWith({});
  });
});

describe('trustedSenderCheck', () => {
  type FrameLike = { processId: number; routingId: number; parent: unknown; url: string };
  const top: FrameLike = { processId: 1, routingId: 2, parent: null, url: 'file:///app/out/renderer/index.html' };
  const window = { isDestroyed: () => false, webContents: { mainFrame: top } } as unknown as BrowserWindow;
  const check = trustedSenderCheck(() => window, panel);
  const frame = (over: Partial<FrameLike>): WebFrameMain => ({ ...top, ...over }) as unknown as WebFrameMain;

  it('trusts only the top frame of our window showing our panel', () => {
    expect(check(frame({}))).toBe(true);
    expect(check(frame({ url: 'file:///app/out/renderer/index.html#/sessions' }))).toBe(true);
    expect(check(frame({ routingId: 3 }))).toBe(false);
    expect(check(frame({ processId: 9 }))).toBe(false);
    expect(check(frame({ parent: top }))).toBe(false);
    expect(check(frame({ url: 'file:///tmp/evil.html' }))).toBe(false);
    expect(check(frame({ url: 'https://example.com/' }))).toBe(false);
    expect(check(null)).toBe(false);
    expect(trustedSenderCheck(() => undefined, panel)(frame({}))).toBe(false);
  });
});
