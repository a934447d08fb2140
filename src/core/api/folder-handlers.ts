import { SandpitError } from '../../shared/api/errors';
import { prepareReviewLayers, shareFolders } from '../folders/share-folders';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type FolderMethods = 'sessions.addFolder' | 'sessions.removeFolder' | 'folders.pick';

/**
 * Sharing folders of this computer with a session (panel-only in the policy table). A new set of folders
 * restarts the session's sandbox in a new container: a bind mount is fixed when a container is made.
 */
export function folderHandlers(kit: HandlerKit): Pick<Handlers, FolderMethods> {
  const { sessions, folders } = kit;
  return {
    'sessions.addFolder': async ({ sessionId, folder }, context) => {
      const session = sessions.access(sessionId, context.principal);
      const next = await prepareReviewLayers(await shareFolders([folder], folders, session.mountedFolders), folders);
      try {
        return await session.replaceFolders(next);
      } catch (error) {
        // the new layer is of no use when the sandbox did not take it
        for (const f of next) if (f.layerPath && !session.mountedFolders.some((m) => m.layerPath === f.layerPath)) await folders.reviews?.remove(f.layerPath);
        throw error;
      }
    },
    'sessions.removeFolder': async ({ sessionId, mountPath }, context) => {
      const session = sessions.access(sessionId, context.principal);
      const wanted = mountPath.replace(/\/+$/, '');
      const current = session.mountedFolders;
      if (!current.some((f) => f.mountPath === wanted)) {
        throw new SandpitError('NOT_FOUND', `No folder is shared at ${wanted} in this session.`);
      }
      const info = await session.replaceFolders(current.filter((f) => f.mountPath !== wanted));
      // a review folder's pending changes go with it (the panel asks first)
      const gone = current.find((f) => f.mountPath === wanted);
      if (gone?.layerPath) await folders.reviews?.remove(gone.layerPath);
      return info;
    },
    // The desktop app answers this one itself (its folder dialog); a browser has none to open.
    'folders.pick': async () => {
      throw new SandpitError('INVALID_INPUT', "The folder picker is part of the desktop app: in the browser, type the folder's full path.", { reason: 'no-picker' });
    },
  };
}
