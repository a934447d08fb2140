import { createHash } from 'node:crypto';
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Artifact } from '../../shared/domain/artifact';
import type { Display } from '../../shared/domain/execution';

/** Artifacts are MCP resources at `sandpit://artifacts/<sha256>`. */
export const ARTIFACT_URI_PREFIX = 'sandpit://artifacts/';

/** Pictures larger than this go back as links only. */
export const MAX_INLINE_IMAGE_BYTES = 1024 * 1024;
/** At most this many pictures inline per result (the rest as links). */
export const MAX_INLINE_IMAGES = 8;

/** Image types sent to the model as MCP `image` content. */
const INLINE_IMAGE_MIMES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml']);

export const artifactLinkSchema = z.object({
  path: z.string().describe('Where the file was, relative to /workspace'),
  mime: z.string().describe('MIME type'),
  size: z.number().int().describe('Size in bytes'),
  sha256: z.string().describe('Content hash: the artifact id'),
  uri: z.string().describe('MCP resource URI to read the file (resources/read), also after the session ended'),
});
export type ArtifactLink = z.infer<typeof artifactLinkSchema>;

export function artifactUri(sha256: string): string {
  return `${ARTIFACT_URI_PREFIX}${sha256}`;
}

export function toArtifactLink(artifact: Artifact): ArtifactLink {
  return {
    path: artifact.path,
    mime: artifact.mime,
    size: artifact.size,
    sha256: artifact.sha256,
    uri: artifactUri(artifact.sha256),
  };
}

export function resourceLink(artifact: Artifact): ContentBlock {
  return {
    type: 'resource_link',
    uri: artifactUri(artifact.sha256),
    name: artifact.path,
    mimeType: artifact.mime,
    size: artifact.size,
    description: `File ${artifact.path} saved by run ${artifact.executionId ?? '?'} of session ${artifact.sessionId}`,
  };
}

export function isInlineImageMime(mime: string): boolean {
  return INLINE_IMAGE_MIMES.has(mime.split(';')[0]?.trim().toLowerCase() ?? '');
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The pictures of a run as MCP image content: image displays (matplotlib PNG, SVG …) and image files it
 * saved, each at most MAX_INLINE_IMAGE_BYTES, at most MAX_INLINE_IMAGES, the same bytes only once.
 */
export async function imageContents(
  displays: readonly Display[],
  artifacts: readonly Artifact[],
  readArtifact: (sha256: string) => Promise<Buffer>,
): Promise<ContentBlock[]> {
  const images: ContentBlock[] = [];
  const seen = new Set<string>();
  const add = (bytes: Buffer, mime: string, sha256: string): void => {
    if (images.length >= MAX_INLINE_IMAGES || seen.has(sha256) || bytes.length > MAX_INLINE_IMAGE_BYTES) return;
    seen.add(sha256);
    images.push({ type: 'image', data: bytes.toString('base64'), mimeType: mime });
  };
  for (const display of displays) {
    if (!isInlineImageMime(display.mime)) continue;
    const bytes = Buffer.from(display.data, display.encoding === 'base64' ? 'base64' : 'utf8');
    add(bytes, display.mime, sha256Of(bytes));
  }
  for (const artifact of artifacts) {
    if (images.length >= MAX_INLINE_IMAGES) break;
    if (!isInlineImageMime(artifact.mime) || artifact.size > MAX_INLINE_IMAGE_BYTES || seen.has(artifact.sha256))
      continue;
    add(await readArtifact(artifact.sha256), artifact.mime, artifact.sha256);
  }
  return images;
}
