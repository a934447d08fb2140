import type { Flavour } from '../shared/domain/languages';

/** Executor image tags the docker project's globalSetup builds and provides; absent when a Dockerfile is not written yet. */
export type ProvidedImages = Partial<Record<Flavour, string>>;

/** Podman for the engine-parametrized tests: its address and images, or why its cases are skipped. */
export type ProvidedPodman = { host: string; images: ProvidedImages; version: string } | { skip: string };

declare module 'vitest' {
  export interface ProvidedContext {
    images: ProvidedImages;
    /** Podman's Docker-compatible service for the engine-parametrized tests, or why its cases are skipped. */
    podman: ProvidedPodman;
  }
}
