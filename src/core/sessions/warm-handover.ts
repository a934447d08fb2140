import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { isolationSchema } from '../../shared/domain/isolation';
import { limitsSchema } from '../../shared/domain/limits';
import { languageSchema } from '../../shared/domain/session';
import type { Logger } from '../log';
import { isOwnerDead } from '../sandbox/instance-identity';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { writeFileAtomic } from '../util/atomic-write';
import { KEPT_MARKERS_DIR } from './kept-store';

/**
 * Warm sandboxes a core that quits leaves ready for the next core of the same data folder (issue 20: an
 * assistant that starts `sandpit mcp` again gets its first answer from a sandbox that is already up). Only
 * sandboxes that never became a session are left, with no network, no folders of this computer and no secrets,
 * talking over a socket: nothing of anyone's is in them. The record is input from a file like every other one
 * (the backend checks the container it names before anything is done with it).
 */
const sandboxSchema = z.object({
  sessionId: z.string().regex(/^ses-[a-z0-9]+$/),
  language: languageSchema,
  image: z.string().min(1),
  limits: limitsSchema,
  isolation: isolationSchema,
  containerId: z.string().regex(/^[0-9a-f]{12,64}$/),
  runtime: z.string(),
  agentDir: z.string(),
  workspace: z.object({ image: z.string(), device: z.string() }).optional(),
});
export type HandedOverSandbox = z.infer<typeof sandboxSchema>;

const handOverSchema = z.object({
  version: z.literal(1),
  /** When it was left (ISO), and until when the next core may take it (ms since the epoch). */
  leftAt: z.string(),
  until: z.number().int().positive(),
  sandboxes: z.array(sandboxSchema).max(64),
});

const FILE = 'warm-handover.json';
/** The markers' folder, inside the kept sessions' one (which the reaper of agent folders passes by). */
const MARKERS = join(KEPT_MARKERS_DIR, 'handover');

interface Marker {
  home: string;
  until: number;
  /** The core that took it over (its reaper and every other one leave it alone while that core lives). */
  holder?: Pick<InstanceIdentity, 'instanceId' | 'host' | 'pid' | 'processStart'>;
}

/** The hand-over of one data folder (`<home>/warm-handover.json`), with a marker per sandbox in the machine's run folder. */
export class WarmHandOver {
  private readonly file: string;
  private readonly markers: string;

  constructor(
    private readonly home: string,
    private readonly runRoot: string,
    private readonly log: Logger,
  ) {
    this.file = join(home, FILE);
    this.markers = join(runRoot, MARKERS);
  }

  /** Leaves these sandboxes for the next core until `until`: the markers first, so no reaper takes them meanwhile. */
  async leave(sandboxes: readonly HandedOverSandbox[], until: number): Promise<void> {
    if (sandboxes.length === 0) return;
    await mkdir(this.markers, { recursive: true, mode: 0o700 });
    for (const s of sandboxes) await this.writeMarker(s.sessionId, { home: this.home, until });
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, leftAt: new Date().toISOString(), until, sandboxes }, null, 2));
  }

  /**
   * What the last core left: [] when there is none, when its time is over, or when it cannot be read (then its
   * sandboxes are the reaper's). The record stays (and with it what spares them from every reaper) until `done`,
   * once each one is held or forgotten: a reaper that runs meanwhile leaves them alone.
   */
  async take(now = Date.now()): Promise<{ sandboxes: HandedOverSandbox[]; done: () => Promise<void> }> {
    const done = (): Promise<void> => rm(this.file, { force: true });
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return { sandboxes: [], done: async () => undefined };
    }
    try {
      const left = handOverSchema.parse(JSON.parse(text));
      if (left.until <= now) {
        this.log.info('the warm sandboxes the last core left are past their time: they are removed as leftovers', { leftAt: left.leftAt });
        await Promise.all(left.sandboxes.map((s) => this.forget(s.sessionId)));
        await done();
        return { sandboxes: [], done: async () => undefined };
      }
      return { sandboxes: left.sandboxes, done };
    } catch (error) {
      this.log.warn('could not read the warm sandboxes the last core left; they are removed as leftovers', { file: this.file, error: error instanceof Error ? error.message : String(error) });
      await done();
      return { sandboxes: [], done: async () => undefined };
    }
  }

  /** Whether the last core left sandboxes here (a record, whatever its time): until `take`, a pool waits for them. */
  async waiting(): Promise<boolean> {
    return stat(this.file).then(
      (found) => found.isFile(),
      () => false,
    );
  }

  /** This core holds the sandbox now: every reaper leaves it alone while this core lives. */
  async hold(sessionId: string, holder: InstanceIdentity): Promise<void> {
    const { instanceId, host, pid, processStart } = holder;
    await this.writeMarker(sessionId, { home: this.home, until: 0, holder: { instanceId, host, pid, processStart } });
  }

  /** The sandbox is gone (or no longer handed over): its marker goes. Never throws. */
  async forget(sessionId: string): Promise<void> {
    if (!/^ses-[a-z0-9]+$/.test(sessionId)) return;
    await rm(join(this.markers, `${sessionId}.json`), { force: true }).catch(() => undefined);
  }

  /** Removes the markers that spare nothing any more (their time over, their holder gone). Never throws. */
  async sweep(self: InstanceIdentity, now = Date.now()): Promise<void> {
    const names = await readdir(this.markers).catch(() => [] as string[]);
    for (const name of names) {
      const sessionId = name.replace(/\.json$/, '');
      if (!(await isHandedOver(this.runRoot, sessionId, self, now))) await rm(join(this.markers, name), { force: true }).catch(() => undefined);
    }
  }

  private async writeMarker(sessionId: string, marker: Marker): Promise<void> {
    await writeFileAtomic(join(this.markers, `${sessionId}.json`), JSON.stringify(marker));
  }
}

/**
 * Whether a sandbox is handed over (so a reaper leaves it alone): its marker names a core that still lives, or a
 * data folder whose hand-over is still waiting for its next core and whose time is not over.
 */
export async function isHandedOver(runRoot: string, sessionId: string, self: InstanceIdentity, now = Date.now()): Promise<boolean> {
  if (!/^ses-[a-z0-9]+$/.test(sessionId)) return false;
  try {
    const marker = JSON.parse(await readFile(join(runRoot, MARKERS, `${sessionId}.json`), 'utf8')) as Partial<Marker>;
    const holder = marker.holder;
    if (holder && typeof holder.instanceId === 'string' && typeof holder.host === 'string') {
      return !isOwnerDead({ host: holder.host, pid: String(holder.pid), start: holder.processStart, instance: holder.instanceId }, self);
    }
    if (typeof marker.home !== 'string' || typeof marker.until !== 'number' || marker.until <= now) return false;
    return (await stat(join(marker.home, FILE))).isFile();
  } catch {
    return false;
  }
}
