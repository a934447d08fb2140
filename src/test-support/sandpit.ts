import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createSandpit } from '../core/app';
import type { CreateSandpitOptions, Sandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import type { SandpitConfig } from '../core/config';
import { silentLogger } from '../core/log';

export interface TestSandpit extends Sandpit {
  /** Disposes the core and deletes its temporary data folder. */
  cleanup(): Promise<void>;
}

export type TestSandpitOptions = CreateSandpitOptions;

/** A real core on the real engine with a throw-away data folder; no warm pool unless asked. */
export async function startTestSandpit(overrides: Partial<SandpitConfig> = {}, options: TestSandpitOptions = {}): Promise<TestSandpit> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-test-'));
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup (is executor-image/python/Dockerfile there?).');
  const config = defaultConfig({
    home,
    poolSize: 0,
    // Test indexes sit behind Docker aliases the host cannot resolve: installs join installNetwork directly
    // unless a test turns the proxy on (with an egressConnect that maps names to addresses).
    egressProxy: false,
    graceMs: 2_000,
    // The images the globalSetup built, per flavour (bash sessions run on the python one).
    images: { ...images },
    ...overrides,
  });
  const sandpit = await createSandpit(config, { logger: silentLogger, ...options });
  return {
    ...sandpit,
    cleanup: async () => {
      await sandpit.dispose();
      await rm(home, { recursive: true, force: true });
    },
  };
}
