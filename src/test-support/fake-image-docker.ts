import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { BuildOptions, DockerClient } from '../core/docker/docker-client';
import type { ImageInfo } from '../core/sandbox/sandbox-images';

export interface FakeImageDocker {
  docker: DockerClient;
  images: Map<string, ImageInfo>;
  builds: Array<{ context: Buffer; options: BuildOptions }>;
  imports: Array<{ tag: string; bytes: Buffer }>;
  removed: string[];
}

function idOf(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** An in-memory engine with only the image calls (anything else throws): for image builder unit tests. */
export function fakeImageDocker(existing: string[] = []): FakeImageDocker {
  const images = new Map<string, ImageInfo>(existing.map((tag) => [tag, { id: idOf(tag), labels: {}, sizeBytes: 1 }]));
  const builds: FakeImageDocker['builds'] = [];
  const imports: FakeImageDocker['imports'] = [];
  const removed: string[] = [];
  const calls: Partial<DockerClient> = {
    imageExists: (tag) => Promise.resolve(images.has(tag)),
    inspectImage: (tag) => Promise.resolve(images.get(tag)),
    removeImage: (tag) => {
      removed.push(tag);
      images.delete(tag);
      return Promise.resolve();
    },
    buildImage: (context, options, onLog) => {
      builds.push({ context, options });
      onLog?.('Step 1/1 : FROM fake');
      images.set(options.tag, { id: idOf(context), labels: options.labels ?? {}, sizeBytes: context.length });
      return Promise.resolve();
    },
    importImage: async (rootfsTar: Readable, tag: string) => {
      const chunks: Buffer[] = [];
      for await (const chunk of rootfsTar) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      imports.push({ tag, bytes });
      images.set(tag, { id: idOf(bytes), labels: {}, sizeBytes: bytes.length });
    },
  };
  const docker = new Proxy(calls, {
    get(target, key: string | symbol) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      const value = target[key as keyof DockerClient];
      if (value === undefined) throw new Error(`fakeImageDocker: ${key} is not faked`);
      return value;
    },
  }) as DockerClient;
  return { docker, images, builds, imports, removed };
}
