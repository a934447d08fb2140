import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandpitError } from '../shared/api/errors';
import { readInstanceFile } from './instance-file';
import { writeFileAtomic } from './util/atomic-write';

/** Who holds a data folder: written by the holder, read by every later start on the same folder. */
export interface HomeHolder {
  host: string;
  pid: number;
  /** The process's start time as the OS reports it ('' when unknown): a reused pid is not the holder. */
  processStart: string;
  /** The core's instance id (several cores can run in one process: tests). */
  instanceId: string;
  /** The command line that holds it, for the person: `sandpit mcp`, `sandpit serve`, the desktop app. */
  command: string;
  startedAt: string;
  /** Set once the holder is shutting down: a new start waits for it to let go instead of refusing. */
  closing?: boolean;
}

/** The data folder's lock, released when its core is disposed (or by the process's exit). */
export interface HomeLock {
  /** Says the holder is shutting down (a start meanwhile waits for the release). */
  closing(): Promise<void>;
  release(): Promise<void>;
}

const LOCK_FILE = 'owner.lock';
/** Attempts to take a lock left by a dead holder (another start may take it in between). */
const ATTEMPTS = 5;
/** How long a start waits for a holder that is shutting down (its sessions are being stopped). */
export const CLOSING_WAIT_MS = 30_000;
const CLOSING_POLL_MS = 100;

export function homeLockPath(home: string): string {
  return join(home, LOCK_FILE);
}

function parseHolder(text: string): HomeHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<HomeHolder>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    if (typeof value.host !== 'string' || typeof value.processStart !== 'string' || typeof value.instanceId !== 'string') return undefined;
    return {
      host: value.host,
      pid: value.pid,
      processStart: value.processStart,
      instanceId: value.instanceId,
      command: typeof value.command === 'string' ? value.command.slice(0, 300) : 'an unknown command',
      startedAt: typeof value.startedAt === 'string' ? value.startedAt.slice(0, 40) : 'an unknown time',
      ...(value.closing === true ? { closing: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Who holds the data folder's lock, as its `owner.lock` records it (undefined: no lock, or not a lock). */
export async function readHomeHolder(home: string): Promise<HomeHolder | undefined> {
  const text = await readFile(homeLockPath(home), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseHolder(text);
}

/** The command line of this process, as a person would recognise it (`sandpit mcp`, `sandpit serve`). */
export function currentCommand(argv: readonly string[] = process.argv): string {
  const [, script, ...rest] = argv;
  const name = script?.includes('sandpit') === true ? 'sandpit' : (script ?? argv[0] ?? 'node');
  return [name, ...rest].join(' ').slice(0, 300);
}

/**
 * Takes the data folder for one core: `<home>/owner.lock` is made exclusively (a hard link of a complete
 * file, so no reader ever sees half of one). A lock whose holder is dead (`isDead`: its pid is gone, or now
 * belongs to a process started at another time) is taken over, so a killed Sandpit never blocks the next
 * start. A live holder is refused with who it is (pid, command, where it serves), and nothing starts — unless
 * it is shutting down (an assistant restarting its `sandpit mcp`): then the start waits for it, up to
 * `closingWaitMs`.
 */
export async function lockHome(home: string, self: HomeHolder, isDead: (holder: HomeHolder) => boolean, closingWaitMs = CLOSING_WAIT_MS): Promise<HomeLock> {
  const path = homeLockPath(home);
  const body = `${JSON.stringify(self)}\n`;
  const waitUntil = Date.now() + closingWaitMs;
  for (let attempt = 0; attempt < ATTEMPTS; ) {
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, body, { mode: 0o600, flag: 'wx' });
    try {
      await link(temp, path);
      return heldLock(path, self);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const holder = parseHolder(text);
    if (holder && !isDead(holder)) {
      if (holder.closing !== true || Date.now() > waitUntil) throw await refusal(home, holder);
      await new Promise((resolve) => setTimeout(resolve, CLOSING_POLL_MS));
      continue;
    }
    attempt += 1;
    // Dead, or not a lock at all: removed only while it is still the same file (another start may have taken it).
    const again = await readFile(path, 'utf8').catch(() => undefined);
    if (again === text) await rm(path, { force: true });
  }
  throw new SandpitError('CONFLICT', `Could not take Sandpit's data folder ${home}: other Sandpits keep starting on it at the same moment. Try again.`, { reason: 'data-folder-busy' });
}

function heldLock(path: string, self: HomeHolder): HomeLock {
  let body = `${JSON.stringify(self)}\n`;
  const onExit = (): void => releaseSync(path, body);
  process.on('exit', onExit);
  let released = false;
  return {
    closing: async (): Promise<void> => {
      if (released || (await readFile(path, 'utf8').catch(() => undefined)) !== body) return;
      const next = `${JSON.stringify({ ...self, closing: true })}\n`;
      await writeFileAtomic(path, next);
      body = next;
    },
    release: async (): Promise<void> => {
      if (released) return;
      released = true;
      process.off('exit', onExit);
      if ((await readFile(path, 'utf8').catch(() => undefined)) === body) await rm(path, { force: true });
    },
  };
}

function releaseSync(path: string, body: string): void {
  try {
    if (readFileSync(path, 'utf8') === body) rmSync(path, { force: true });
  } catch {
    // Gone already: nothing of ours to remove.
  }
}

async function refusal(home: string, holder: HomeHolder): Promise<SandpitError> {
  const served = await readInstanceFile(home);
  const where = served && served.pid === holder.pid ? `, serving ${served.url}` : '';
  return new SandpitError(
    'CONFLICT',
    `Another Sandpit already uses the data folder ${home}: process ${holder.pid} (${holder.command}${where}), started ${holder.startedAt}. ` +
      'One data folder has one Sandpit, so two cannot run each other\'s sessions. Open the Sandpit app or run "sandpit serve": every "sandpit mcp" then connects to it. Or stop that process, or give this one a data folder of its own (SANDPIT_HOME).',
    { reason: 'data-folder-in-use', pid: holder.pid, command: holder.command, ...(where ? { url: served?.url } : {}) },
  );
}
