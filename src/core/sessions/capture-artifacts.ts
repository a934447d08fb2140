import type { Artifact } from '../../shared/domain/artifact';
import type { Display } from '../../shared/domain/execution';
import type { ArtifactStore } from '../files/artifact-store';
import { isImageMime } from '../files/mime';
import type { Logger } from '../log';
import { readWorkspaceFile } from './workspace-files';
import type { WorkspaceAgent } from './workspace-files';

export interface CaptureInput {
  agent: WorkspaceAgent;
  store: ArtifactStore;
  sessionId: string;
  sessionName: string;
  executionId: string;
  files: Array<{ path: string; size: number }>;
  displays: Display[];
  maxBytes: number;
  maxCount: number;
  log: Logger;
}

const DISPLAY_EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg', 'text/html': 'html', 'image/gif': 'gif' };

/**
 * Copies what a run produced into the host artifact store: files it created or changed under
 * /workspace (regular files only, size-capped) and its image/HTML displays.
 */
export async function captureArtifacts(input: CaptureInput): Promise<Artifact[]> {
  const artifacts: Artifact[] = [];
  const shortId = input.executionId.replace(/^run-/, '');
  for (const [index, display] of input.displays.entries()) {
    if (artifacts.length >= input.maxCount) break;
    const ext = DISPLAY_EXTENSIONS[display.mime];
    if (!ext || (!isImageMime(display.mime) && display.mime !== 'text/html')) continue;
    const content = display.encoding === 'base64' ? Buffer.from(display.data, 'base64') : Buffer.from(display.data, 'utf8');
    artifacts.push(await input.store.put(content, { path: `outputs/${shortId}-${index + 1}.${ext}`, sessionId: input.sessionId, sessionName: input.sessionName, executionId: input.executionId, mime: display.mime }));
  }
  for (const file of input.files) {
    if (artifacts.length >= input.maxCount) break;
    if (file.size > input.maxBytes) {
      input.log.info('file too large to keep as an artifact', { path: file.path, size: file.size });
      continue;
    }
    try {
      const read = await readWorkspaceFile(input.agent, file.path, input.maxBytes);
      artifacts.push(await input.store.put(read.content, { path: read.path, sessionId: input.sessionId, sessionName: input.sessionName, executionId: input.executionId }));
    } catch (error) {
      // A file that vanished, became a link or grew past the cap is simply not kept.
      input.log.info('file not kept as an artifact', { path: file.path, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return artifacts;
}
