import type { FolderCheckContext } from './folder-check';
import type { ReviewLayers } from './review/review-layers';

/** What the API needs to share folders: whether the engine can see this computer's folders, and what to check them against. */
export interface FolderSharing {
  /** Why folders of this computer cannot reach this engine's sandboxes (a remote engine), in plain words; undefined when they can. */
  unavailable(): string | undefined;
  /** The places to refuse, as they are now (the protected list comes from Settings). */
  checkContext(): FolderCheckContext;
  /** The layers of review folders ("Changes need my OK"); absent: that mode is not offered. */
  reviews?: ReviewLayers;
}
