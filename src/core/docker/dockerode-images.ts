import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { BuildOptions } from './docker-client';

// The bodies of DockerodeClient's image build and import calls: the client runs each through its
// logged, timed, error-mapped call wrapper.

/** Builds an image from a tar build context, passing each non-blank progress line to `onLog`; fails on the first build error. */
export async function buildFromContext(docker: Docker, context: Buffer, options: BuildOptions, onLog?: (line: string) => void): Promise<void> {
  const stream = await docker.buildImage(bufferStream(context), {
    t: options.tag,
    dockerfile: options.dockerfile,
    buildargs: options.buildArgs,
    labels: options.labels,
    networkmode: options.networkMode,
    rm: true,
    forcerm: true,
  });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, output: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
        const failed = error ?? output.find((o) => o.error);
        if (failed) reject(failed instanceof Error ? failed : new Error(failed.errorDetail?.message ?? failed.error));
        else resolve();
      },
      (event: { stream?: string; status?: string; error?: string }) => {
        const text = event.stream ?? event.status ?? event.error;
        if (text && onLog) for (const line of text.split('\n')) if (line.trim()) onLog(line);
      },
    );
  });
}

/**
 * Imports a root filesystem tar as the image `tag` (`repo:version`, `latest` when no version is given). The
 * whole name goes in `repo` (the API lets it carry the tag): Podman's compatible API ignores a separate `tag`
 * and would name the image `…:latest`.
 */
export async function importRootfs(docker: Docker, rootfsTar: Readable, tag: string): Promise<void> {
  const [repo, version] = splitTag(tag);
  const stream = await docker.importImage(rootfsTar, { repo: `${repo}:${version}` });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

function splitTag(tag: string): [string, string] {
  const at = tag.lastIndexOf(':');
  return at > tag.lastIndexOf('/') ? [tag.slice(0, at), tag.slice(at + 1)] : [tag, 'latest'];
}

function bufferStream(buffer: Buffer): NodeJS.ReadableStream {
  const s = new PassThrough();
  s.end(buffer);
  return s;
}
