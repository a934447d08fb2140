import type { Readable } from 'node:stream';

/**
 * The engine's image store, as environments need it: whether an image is there, building one from a
 * context, importing a root filesystem, removing. Docker's is src/core/docker/docker-images.ts.
 */
export interface SandboxImages {
  exists(tag: string): Promise<boolean>;
  /** The image's id and labels, or undefined when no image has this tag/id. */
  inspect(tag: string): Promise<ImageInfo | undefined>;
  /** Builds an image from a context (a tar holding its Dockerfile); `onLog` follows the build line by line. */
  build(request: ImageBuild, onLog?: (line: string) => void): Promise<void>;
  /** Imports a root filesystem (a tar stream) as an image with this tag. */
  import(rootfsTar: Readable, tag: string): Promise<void>;
  remove(tag: string): Promise<void>;
}

export interface ImageInfo {
  /** The content-addressed image id (`sha256:…`). */
  id: string;
  labels: Record<string, string>;
  sizeBytes: number;
}

export interface ImageBuild {
  context: Buffer;
  tag: string;
  /** Variables of the build's RUN steps (the egress proxy's, for a build that installs packages). */
  buildArgs?: Record<string, string>;
  /** The network the build's RUN steps use; absent: the engine's default. */
  network?: string;
  /** The environment the image is built for (the engine marks the image with it). */
  environment: { id: string; hash: string };
}
