import { BrowserWindow, ipcMain } from 'electron';
import type { IpcMainInvokeEvent, WebContents, WebFrameMain } from 'electron';
import type { Envelope } from '../shared/api/transport';
import { IPC_EVENT_CHANNEL, ipcChannelFor } from '../shared/api/transport';
import { METHOD_NAMES } from '../shared/api/contract';
import { dispatch } from '../core/api/dispatcher';
import type { EventBus } from '../core/events/event-bus';
import type { CallContext, Handlers } from '../core/api/api-types';

export type TrustedSenderCheck = (frame: WebFrameMain | null | undefined) => boolean;

const PANEL_CONTEXT: CallContext = { transport: 'ipc', client: 'panel' };

const DENIED: Envelope<never> = {
  ok: false,
  error: { code: 'DENIED', message: 'This window is not the Sandpit panel, so it may not call Sandpit.' },
};

function allWindows(): WebContents[] {
  return BrowserWindow.getAllWindows().map((window) => window.webContents);
}

/**
 * The only file that touches ipcMain. One handler per contract method (`sandpit:<method>`), each checking
 * that the call comes from our panel's top frame before dispatching; live events go to trusted panels only.
 * Returns the function that removes everything it registered.
 */
export function registerIpc(
  api: Handlers,
  bus: EventBus,
  isTrustedSender: TrustedSenderCheck,
  targets: () => WebContents[] = allWindows,
): () => void {
  const channels = METHOD_NAMES.map((name) => {
    const channel = ipcChannelFor(name);
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown): Promise<Envelope<unknown>> => {
      if (!isTrustedSender(event.senderFrame)) return DENIED;
      return dispatch(api, name, input, PANEL_CONTEXT);
    });
    return channel;
  });

  const stopEvents = bus.onAny((name, payload) => {
    for (const contents of targets()) {
      if (!contents.isDestroyed() && isTrustedSender(contents.mainFrame))
        contents.send(IPC_EVENT_CHANNEL, name, payload);
    }
  });

  return () => {
    stopEvents();
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}
