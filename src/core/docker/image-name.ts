/**
 * An image name as engines compare it: Podman reports a local image as `localhost/name:tag` and Docker Hub's
 * as `docker.io/library/name:tag`, where Docker says `name:tag`; a name without a tag is `:latest`.
 */
export function canonicalImageName(name: string): string {
  const bare = name.replace(/^(localhost|docker\.io)\//, '').replace(/^library\//, '');
  if (bare.includes('@')) return bare;
  const lastPart = bare.slice(bare.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? bare : `${bare}:latest`;
}
