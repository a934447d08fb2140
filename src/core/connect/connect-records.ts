import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AssistantId } from '../../shared/domain/assistants';

const recordSchema = z.object({
  configPath: z.string(),
  existed: z.boolean(),
  beforeSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  afterSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

/** What Connect kept of one assistant's file: whether it existed, and where its text as it was is kept. */
export interface KeptFile {
  existed: boolean;
  backupPath?: string;
  beforeSha256?: string;
  afterSha256?: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The data folder's `connect/` folder: per assistant, the file as it was before Sandpit connected it
 * (`<id>.before`) and a record of what Sandpit wrote (`<id>.json`). A record is believed only when it names
 * the file Connect itself would write and the kept text is intact: the path to write is never taken from it.
 */
export class ConnectRecords {
  private readonly dir: string;

  constructor(dataHome: string) {
    this.dir = join(dataHome, 'connect');
  }

  private recordPath(id: AssistantId): string {
    return join(this.dir, `${id}.json`);
  }

  private backupPath(id: AssistantId): string {
    return join(this.dir, `${id}.before`);
  }

  async read(id: AssistantId, configPath: string): Promise<KeptFile | undefined> {
    let parsed: z.infer<typeof recordSchema>;
    try {
      parsed = recordSchema.parse(JSON.parse(await readFile(this.recordPath(id), 'utf8')));
    } catch {
      return undefined;
    }
    if (parsed.configPath !== configPath || parsed.afterSha256 === undefined) return undefined;
    if (!parsed.existed) return { existed: false, afterSha256: parsed.afterSha256 };
    const kept = await readFile(this.backupPath(id), 'utf8').catch(() => undefined);
    if (kept === undefined || sha256(kept) !== parsed.beforeSha256) return undefined;
    return {
      existed: true,
      backupPath: this.backupPath(id),
      beforeSha256: parsed.beforeSha256,
      afterSha256: parsed.afterSha256,
    };
  }

  /** Keeps the file's text as it is now (undefined: there is no file). */
  async keep(id: AssistantId, configPath: string, text: string | undefined): Promise<KeptFile> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await rm(this.recordPath(id), { force: true });
    if (text === undefined) {
      await rm(this.backupPath(id), { force: true });
      return { existed: false };
    }
    await writeFile(this.backupPath(id), text, { mode: 0o600 });
    return { existed: true, backupPath: this.backupPath(id), beforeSha256: sha256(text) };
  }

  /** Records what Sandpit wrote (after the file is written). */
  async wrote(id: AssistantId, configPath: string, kept: KeptFile, afterSha256: string): Promise<void> {
    const record = {
      configPath,
      existed: kept.existed,
      ...(kept.beforeSha256 ? { beforeSha256: kept.beforeSha256 } : {}),
      afterSha256,
    };
    await writeFile(this.recordPath(id), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  }

  /** The file's text as it was (undefined: there was no file). */
  async original(kept: KeptFile): Promise<string | undefined> {
    if (!kept.existed || !kept.backupPath) return undefined;
    const text = await readFile(kept.backupPath, 'utf8');
    if (sha256(text) !== kept.beforeSha256) throw new Error(`${kept.backupPath} changed since Sandpit kept it`);
    return text;
  }

  async forget(id: AssistantId): Promise<void> {
    await rm(this.recordPath(id), { force: true });
    await rm(this.backupPath(id), { force: true });
  }
}
