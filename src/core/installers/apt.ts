import { runLine } from './dockerfile-lines';

/** apt: Debian packages baked into an environment's image, from its base image's own mirrors (never installed into a running session). */
export function aptDockerfile(names: readonly string[]): string[] {
  return [runLine(['apt-get', 'update']), runLine(['apt-get', 'install', '-y', '--no-install-recommends', ...names]), runLine(['rm', '-rf', '/var/lib/apt/lists'])];
}
