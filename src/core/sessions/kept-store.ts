import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { limitsSchema } from '../../shared/domain/limits';
import { isolationSchema } from '../../shared/domain/isolation';
import { secretNameSchema } from '../../shared/domain/secret';
import { sharedFolderSchema } from '../../shared/domain/shared-folder';
import { channelKindSchema, languageSchema } from '../../shared/domain/session';
import type { Logger } from '../log';
import { writeFileAtomic } from '../util/atomic-write';

/** A kept session as the data folder holds it: enough for the next core to list it and start its sandbox again. */
export const keptRecordSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(/^ses-[a-z0-9]+$/),
  name: z.string(),
  language: languageSchema,
  image: z.string(),
  limits: limitsSchema,
  environment: z.object({ id: z.string(), name: z.string() }).optional(),
  networkPolicy: z.enum(['none', 'packages', 'open']),
  network: z.string().optional(),
  isolation: isolationSchema,
  client: z.string().optional(),
  /** Who made it while the core that made it ran (an MCP session id, gone after a restart: a resumed session is shared). */
  madeBy: z.string().optional(),
  createdAt: z.string(),
  idleTtlMs: z.number().int().positive(),
  packages: z.array(z.string()),
  /** How many runs it had when the record was last written (the count the session list shows). */
  runs: z.number().int().nonnegative().optional(),
  /** Its successful runs, in order, when the record was last written (a fork with replay: true runs them again). */
  history: z.object({ runs: z.array(z.object({ code: z.string(), language: languageSchema })), complete: z.boolean() }).optional(),
  /** Folders of this computer the person shared with it (its container has them mounted). */
  folders: z.array(sharedFolderSchema.extend({ groupId: z.number().int().optional(), layerPath: z.string().optional(), overlayWorkPath: z.string().optional() })).optional(),
  /** The secrets the person ticked for it (names only, never a value; its environment's are not listed here). */
  secrets: z.array(secretNameSchema).max(20).optional(),
  /** The backend's own record of the sandbox (container, agent folder, workspace disk). */
  sandbox: z.object({
    containerId: z.string().min(1),
    channel: channelKindSchema,
    runtime: z.string(),
    agentDir: z.string().optional(),
    workspace: z.object({ image: z.string(), device: z.string() }).optional(),
  }),
});
export type KeptRecord = z.infer<typeof keptRecordSchema>;

const RECORDS = 'kept-sessions';
/** The markers' folder in the run folder (the reaper of agent folders passes it by). */
export const KEPT_MARKERS_DIR = 'kept';
const MARKERS = KEPT_MARKERS_DIR;

/**
 * The kept sessions of one data folder (`<home>/kept-sessions/<id>.json`), and a marker per kept session in
 * the machine-wide run folder (`<runRoot>/kept/<id>.json`, naming the data folder), so the reaper of any
 * Sandpit on this machine — another data folder's too — leaves a kept session's container and disks alone.
 */
export class KeptStore {
  private readonly dir: string;
  private readonly markers: string;

  constructor(
    private readonly home: string,
    private readonly runRoot: string,
    private readonly log: Logger,
  ) {
    this.dir = join(home, RECORDS);
    this.markers = join(runRoot, MARKERS);
  }

  async save(record: KeptRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await mkdir(this.markers, { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(this.dir, `${record.id}.json`), JSON.stringify(record, null, 2));
    await writeFileAtomic(join(this.markers, `${record.id}.json`), JSON.stringify({ home: this.home }));
  }

  async remove(sessionId: string): Promise<void> {
    await rm(join(this.dir, `${sessionId}.json`), { force: true });
    await rm(join(this.markers, `${sessionId}.json`), { force: true });
  }

  /** Every readable record; one that cannot be read is logged and left on disk (never silently dropped). */
  async list(): Promise<KeptRecord[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const records: KeptRecord[] = [];
    for (const name of names.filter((n) => /^ses-[a-z0-9]+\.json$/.test(n)).sort()) {
      try {
        records.push(keptRecordSchema.parse(JSON.parse(await readFile(join(this.dir, name), 'utf8'))));
      } catch (error) {
        this.log.warn('could not read a kept session record; it is left as it is', { file: join(this.dir, name), error: error instanceof Error ? error.message : String(error) });
      }
    }
    return records;
  }

  /** Whether a session is kept by any data folder on this machine (see isKeptSession). */
  isKept(sessionId: string): Promise<boolean> {
    return isKeptSession(this.runRoot, sessionId);
  }
}

/**
 * Whether some data folder keeps this session: its marker in the run folder names a data folder that still
 * holds its record. A marker whose data folder is gone (deleted) keeps nothing, so its leftovers are reaped.
 */
export async function isKeptSession(runRoot: string, sessionId: string): Promise<boolean> {
  if (!/^ses-[a-z0-9]+$/.test(sessionId)) return false;
  try {
    const marker = JSON.parse(await readFile(join(runRoot, MARKERS, `${sessionId}.json`), 'utf8')) as { home?: unknown };
    if (typeof marker.home !== 'string') return false;
    return (await stat(join(marker.home, RECORDS, `${sessionId}.json`))).isFile();
  } catch {
    return false;
  }
}
