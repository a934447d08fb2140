import { createSandpit } from '../core/app';
import type { CreateSandpitOptions, Sandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import type { SandpitConfig } from '../core/config';
import { openEngine } from '../core/docker/open-engine';
import { resolveExecutorImages } from '../core/docker/resolve-images';
import { createLogger } from '../core/log';
import { withStoredSettings } from '../core/settings/load-settings';

/** How long the engine has to answer before the core starts without looking up its images. */
const ENGINE_PROBE_MS = 3_000;

/** Builds the headless core for the CLI: config from the environment, images that are built (SANDPIT_PYTHON_IMAGE overrides the python flavour). */
export async function startCore(
  overrides: Partial<SandpitConfig> = {},
  options: Pick<CreateSandpitOptions, 'logger' | 'bus' | 'clients'> = {},
): Promise<{ sandpit: Sandpit; notes: string[] }> {
  const logger = options.logger ?? createLogger({ app: 'sandpit' });
  // The person's settings over the defaults; what the command line says over both.
  const stored = await withStoredSettings(defaultConfig(), logger);
  const base: SandpitConfig = { ...stored.config, ...overrides };
  const { docker } = await openEngine(base.dockerHost, logger);
  let notes: string[] = [];
  // SANDPIT_PYTHON_IMAGE names the image of the python flavour (as in the desktop app), e.g. the python-data one.
  const pythonImage = process.env.SANDPIT_PYTHON_IMAGE?.trim();
  let images = { ...(pythonImage ? { python: pythonImage } : {}), ...base.images };
  try {
    // An engine that does not answer is not asked about each image (each would wait out its own timeout):
    // the core starts at once, says the engine is down, and finds the images when it is back.
    await docker.ping(ENGINE_PROBE_MS);
    const resolved = await resolveExecutorImages(docker);
    images = { ...resolved.images, ...images };
    notes = resolved.missing;
  } catch (error) {
    notes = [error instanceof Error ? error.message : String(error)];
  }
  // The client is not handed on: one given to createSandpit is a fixed engine (tests), and a new Docker address in
  // Settings must be tried when saved and used at once.
  const sandpit = await createSandpit({ ...base, images }, { ...options, logger, settings: stored.settings });
  return { sandpit, notes };
}

/** Resolves on SIGINT/SIGTERM after disposing the core (bounded by a timeout). */
export function untilSignal(dispose: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      dispose().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
