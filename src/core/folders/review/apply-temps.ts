import { appendFile, lstat, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parentsAreFolders, safeParts } from './review-files';

/** The name of a temp file Sandpit writes beside a file it applies: `.<name>.sandpit-<10 hex>.tmp`. */
export const TEMP_NAME = /^\..+\.sandpit-[0-9a-f]{10}\.tmp$/;

const JOURNAL = 'apply-temps.log';

/**
 * The temp files an apply makes in the person's folder, written down (one path a line, relative to the
 * folder) before each is created, so that the ones a killed apply leaves behind can be removed later. Only a
 * file both recorded here and named like Sandpit's temp files is ever removed: never anything else.
 */
export class ApplyTemps {
  constructor(
    private readonly layerDir: string,
    private readonly hostPath: string,
  ) {}

  /** Records `temp` (a full path inside the person's folder) before it is created. */
  async record(temp: string): Promise<void> {
    const rel = temp.slice(this.hostPath.length + 1);
    if (!temp.startsWith(`${this.hostPath}/`) || rel.includes('\n')) return;
    await appendFile(join(this.layerDir, JOURNAL), `${rel}\n`, { mode: 0o600 });
  }

  /** Removes what an earlier apply left (recorded, named like a temp file, a regular file, nothing above it a link); returns the paths removed. */
  async sweep(): Promise<string[]> {
    const text = await readFile(join(this.layerDir, JOURNAL), 'utf8').catch(() => undefined);
    if (text === undefined) return [];
    const removed: string[] = [];
    for (const rel of new Set(text.split('\n').filter((line) => line !== ''))) {
      try {
        safeParts(rel);
      } catch {
        continue;
      }
      if (!TEMP_NAME.test(basename(rel)) || !(await parentsAreFolders(this.hostPath, rel))) continue;
      const path = join(this.hostPath, rel);
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      await rm(path, { force: true });
      removed.push(rel);
    }
    await rm(join(this.layerDir, JOURNAL), { force: true });
    return removed;
  }
}
