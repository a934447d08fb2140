import { dialog } from 'electron';
import type { BrowserWindow } from 'electron';
import type { Handler } from '../core/api/api-types';

/**
 * The desktop app's answer to `folders.pick`: the system's folder dialog over the panel's window. What is
 * picked is only a path: sharing it goes through `sessions.addFolder`, which checks it like a typed one.
 */
export function folderPicker(window: () => BrowserWindow | undefined): Handler<'folders.pick'> {
  return async () => {
    const options = { title: 'Share a folder with the session', properties: ['openDirectory' as const, 'dontAddToRecent' as const] };
    const owner = window();
    const picked = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    const hostPath = picked.canceled ? undefined : picked.filePaths[0];
    return hostPath === undefined ? {} : { hostPath };
  };
}
