import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appPaths } from './app-paths';

describe('appPaths', () => {
  it('finds the built panel, preload and images in the repository during development', () => {
    const paths = appPaths('/repo', false, { ELECTRON_RENDERER_URL: 'http://localhost:5173' });
    expect(paths.panel).toEqual({
      rendererFile: join('/repo', 'out/renderer/index.html'),
      devUrl: 'http://localhost:5173/',
    });
    expect(paths.preloadFile).toBe(join('/repo', 'out/preload/index.js'));
    expect(paths.imagesDir).toBe(join('/repo', 'executor-image'));
  });

  it('reads the images from outside the asar archive and ignores a dev URL when packaged', () => {
    const paths = appPaths('/opt/Sandpit/resources/app.asar', true, { ELECTRON_RENDERER_URL: 'http://localhost:5173' });
    expect(paths.panel.devUrl).toBeUndefined();
    expect(paths.panel.rendererFile).toBe(join('/opt/Sandpit/resources/app.asar', 'out/renderer/index.html'));
    expect(paths.imagesDir).toBe(join('/opt/Sandpit/resources/app.asar.unpacked', 'executor-image'));
  });
});
