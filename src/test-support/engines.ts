import { inject } from 'vitest';
import type { SandpitConfig } from '../core/config';

/**
 * The engines the core integration tests run on, like the isolation levels: Docker (the suite's engine)
 * and Podman through its Docker-compatible API. Where Podman is not there, its cases are skipped and their
 * names say why.
 */
export type TestEngineName = 'docker' | 'podman';

export interface TestEngine {
  engine: TestEngineName;
  /** The engine's name in the report, with the skip reason when its cases are skipped. */
  label: string;
  skip: boolean;
}

export function testEngines(): TestEngine[] {
  const podman = inject('podman');
  return [
    { engine: 'docker', label: 'docker', skip: false },
    'skip' in podman ? { engine: 'podman', label: `podman — SKIPPED: ${podman.skip}`, skip: true } : { engine: 'podman', label: `podman ${podman.version}`, skip: false },
  ];
}

/** What startTestSandpit needs to run on `engine`: nothing for Docker; Podman's address and its copies of the images. */
export function onEngine(engine: TestEngineName): Partial<SandpitConfig> {
  if (engine === 'docker') return {};
  const podman = inject('podman');
  if ('skip' in podman) throw new Error(`Podman is not available for this test: ${podman.skip}`);
  return { dockerHost: podman.host, images: { ...podman.images } };
}
