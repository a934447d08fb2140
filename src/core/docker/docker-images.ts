import type { ImageBuild, ImageInfo, SandboxImages } from '../sandbox/sandbox-images';
import type { DockerClient } from './docker-client';
import { LABEL } from './labels';

/** The image port over a Docker engine: environment images carry Sandpit's labels (what they are for, their definition's hash). */
export function dockerImages(docker: DockerClient): SandboxImages {
  return {
    exists: (tag: string): Promise<boolean> => docker.imageExists(tag),
    inspect: (tag: string): Promise<ImageInfo | undefined> => docker.inspectImage(tag),
    build: (request: ImageBuild, onLog?: (line: string) => void): Promise<void> =>
      docker.buildImage(
        request.context,
        {
          tag: request.tag,
          buildArgs: request.buildArgs,
          networkMode: request.network,
          labels: { [LABEL.managed]: 'true', [LABEL.role]: 'environment', 'dev.sandpit.environment': request.environment.id, 'dev.sandpit.environment-hash': request.environment.hash },
        },
        onLog,
      ),
    import: (rootfsTar, tag): Promise<void> => docker.importImage(rootfsTar, tag),
    remove: (tag: string): Promise<void> => docker.removeImage(tag),
  };
}
