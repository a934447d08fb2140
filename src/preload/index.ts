import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import type { SandpitBridge, TransportEventListener } from '../shared/api/transport';
import { EVENT_CHANNEL, channelForMethod } from './channels';

/** The only file that touches ipcRenderer: allow-listed invokes and the event channel, nothing else. */
const bridge: SandpitBridge = {
  invoke(method: string, input: unknown): Promise<unknown> {
    const channel = channelForMethod(method);
    if (!channel) {
      return Promise.resolve({
        ok: false,
        error: { code: 'NOT_FOUND', message: `Unknown method "${String(method)}".` },
      });
    }
    return ipcRenderer.invoke(channel, input);
  },
  subscribe(listener: TransportEventListener): () => void {
    // Never hand the IpcRendererEvent (it carries `sender`) to the page.
    const forward = (_event: IpcRendererEvent, name: unknown, payload: unknown): void => {
      if (typeof name === 'string') listener(name, payload);
    };
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('sandpit', bridge);
