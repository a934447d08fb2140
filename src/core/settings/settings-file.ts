import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log';
import { writeFileAtomic } from '../util/atomic-write';
import { storedSettingsSchema } from './stored-settings';
import type { StoredSettings } from './stored-settings';

export function settingsPath(home: string): string {
  return join(home, 'settings.json');
}

/**
 * The stored settings. A missing file is no settings; an unreadable one, or a setting that is not
 * valid (edited by hand, written by a newer version), is skipped with a warning so Sandpit still starts.
 */
export async function readSettingsFile(path: string, log?: Logger): Promise<StoredSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    log?.warn('the settings file is not JSON; using the defaults until settings are saved again', { path });
    return {};
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    log?.warn('the settings file holds no settings object; using the defaults', { path });
    return {};
  }
  const stored: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const schema = storedSettingsSchema.shape[key as keyof typeof storedSettingsSchema.shape];
    const parsed = schema?.safeParse(value);
    if (parsed?.success) stored[key] = parsed.data;
    else log?.warn('skipping a setting that is not valid', { path, setting: key });
  }
  return storedSettingsSchema.parse(stored);
}

/** Writes the stored settings atomically with mode 0600. */
export async function writeSettingsFile(path: string, stored: StoredSettings): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(stored, null, 2)}\n`);
}
