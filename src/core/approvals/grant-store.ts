import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { callerKeySchema } from '../../shared/domain/caller-key';
import type { Logger } from '../log';
import { writeFileAtomic } from '../util/atomic-write';

/** "Approve for this session" as the data folder keeps it: which session, who was given it, by which name, when. */
export interface StoredGrant {
  sessionId: string;
  /** The caller it was given to while that Sandpit ran (its MCP session, or `stdio:<pid>`). */
  principal: string;
  /** The same assistant across reconnects and restarts: its token (or `stdio`) and its name. Absent: none was known. */
  owner?: string;
  client: string;
  grantedAt: string;
}

/** The file in the data folder. */
export const GRANTS_FILE = 'approval-grants.json';
/** The most grants kept (the queue keeps no more either). */
export const MAX_STORED_GRANTS = 1_000;
const MAX_FILE_BYTES = 1024 * 1024;

const grantSchema = z
  .object({
    sessionId: z.string().regex(/^ses-[a-z0-9]+$/),
    principal: callerKeySchema,
    owner: callerKeySchema.optional(),
    client: z.string().min(1).max(200),
    grantedAt: z.iso.datetime(),
  })
  .strict();
const fileSchema = z.object({ version: z.literal(1), grants: z.array(z.unknown()).max(MAX_STORED_GRANTS) }).strict();

/**
 * The grants given in the chat ("Approve for this session"), kept in the data folder so that a kept session's grants
 * outlive a restart of Sandpit. Read back they are input, not orders: a file that does not parse or is too big grants
 * nothing (and is said so in the log), an entry that does not pass the schema is skipped; which sessions still exist
 * is the queue's to check (approval-queue.ts restoreGrants). Writes go one after another, the newest last.
 */
export class GrantStore {
  private readonly path: string;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    home: string,
    private readonly log: Logger,
  ) {
    this.path = join(home, GRANTS_FILE);
  }

  async load(): Promise<StoredGrant[]> {
    let text: string;
    try {
      const info = await stat(this.path);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) {
        this.log.warn('the approvals given for sessions in the data folder were refused: not a file of a sensible size', { file: this.path });
        return [];
      }
      text = await readFile(this.path, 'utf8');
    } catch {
      return [];
    }
    const parsed = fileSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      this.log.warn('the approvals given for sessions in the data folder were refused: the file does not parse', { file: this.path });
      return [];
    }
    const grants: StoredGrant[] = [];
    for (const entry of parsed.data.grants) {
      const grant = grantSchema.safeParse(entry);
      if (grant.success) grants.push(grant.data);
      else this.log.warn('an approval given for a session in the data folder was refused (skipped)', { file: this.path });
    }
    return grants;
  }

  /** Writes these grants (after any write asked for before). */
  save(grants: readonly StoredGrant[]): void {
    const text = JSON.stringify({ version: 1, grants: grants.slice(-MAX_STORED_GRANTS) }, null, 2);
    this.writing = this.writing
      .then(() => writeFileAtomic(this.path, text))
      .catch((error: unknown) => this.log.warn('could not keep the approvals given for sessions in the data folder', { error: error instanceof Error ? error.message : String(error) }));
  }

  /** Every write asked for so far, on disk. */
  flush(): Promise<void> {
    return this.writing;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
