import { join } from 'node:path';
import type { PanelLocation } from './trusted-origin';
import { devServerUrl } from './trusted-origin';

export interface AppPaths {
  panel: PanelLocation;
  preloadFile: string;
  iconPath: string;
  /** The executor-image directory, outside the asar archive when packaged (the image builder reads and spawns in it). */
  imagesDir: string;
}

/** Where the app's own files are, from `app.getAppPath()` (the repository in dev, `…/app.asar` when packaged). */
export function appPaths(appDir: string, isPackaged: boolean, env: NodeJS.ProcessEnv = process.env): AppPaths {
  const unpacked = (path: string): string =>
    isPackaged ? path.replace(/app\.asar(?=[\\/]|$)/, 'app.asar.unpacked') : path;
  return {
    panel: {
      rendererFile: join(appDir, 'out', 'renderer', 'index.html'),
      devUrl: devServerUrl(env.ELECTRON_RENDERER_URL, isPackaged),
    },
    preloadFile: join(appDir, 'out', 'preload', 'index.js'),
    iconPath: join(appDir, 'resources', 'icon.png'),
    imagesDir: unpacked(join(appDir, 'executor-image')),
  };
}
