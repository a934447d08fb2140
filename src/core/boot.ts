import { createSandpit } from './app';
import type { CreateSandpitOptions, Sandpit } from './app';
import { defaultConfig } from './config';
import type { SandpitConfig } from './config';
import { openEngine } from './docker/open-engine';
import { startImages } from './boot-images';
import { createLogger } from './log';
import { withStoredSettings } from './settings/load-settings';

export interface BootOptions extends Pick<CreateSandpitOptions, 'logger' | 'bus' | 'clients' | 'secretCipher'> {
  /** What the command line says, over the person's settings. */
  overrides?: Partial<SandpitConfig>;
  /** The `executor-image/` folder the images are planned from (the desktop app's own copy); default: the config's. */
  imagesDir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The one start-up of Sandpit, for the desktop app, `sandpit serve` and `sandpit mcp`: the person's settings over
 * the defaults, the command line over both, the sandbox images that are built, then the core. `notes` says, in
 * plain words, what is missing (an image not built, an engine that did not answer).
 */
export async function bootSandpit(options: BootOptions = {}): Promise<{ sandpit: Sandpit; notes: string[] }> {
  const logger = options.logger ?? createLogger({ app: 'sandpit' });
  const stored = await withStoredSettings(defaultConfig(), logger);
  const base: SandpitConfig = { ...stored.config, ...options.overrides };
  const { docker } = await openEngine(base.dockerHost, logger);
  const { images, notes } = await startImages(docker, base, options.imagesDir, options.env ?? process.env);
  // The client is not handed on: one given to createSandpit is a fixed engine (tests), and a new Docker address in
  // Settings must be tried when saved and used at once.
  const sandpit = await createSandpit({ ...base, images }, { logger, settings: stored.settings, ...(options.bus ? { bus: options.bus } : {}), ...(options.clients ? { clients: options.clients } : {}), ...(options.secretCipher ? { secretCipher: options.secretCipher } : {}) });
  return { sandpit, notes };
}
