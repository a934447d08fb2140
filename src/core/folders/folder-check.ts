import { realpath, stat } from 'node:fs/promises';
import { SandpitError } from '../../shared/api/errors';
import type { FolderMode } from '../../shared/domain/shared-folder';
import { homeParents, pathRules, systemFolders } from './folder-rules';
import type { PathRules } from './folder-rules';

/** What a folder is checked against: this computer's places that must never reach a sandbox. */
export interface FolderCheckContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Sandpit's data folder (token, audit log, artifacts). */
  dataFolder: string;
  /** The protected list of Settings (`~` = the home folder). */
  protectedFolders: readonly string[];
  /** Unix sockets of Docker engines (the one in use and the usual places). */
  engineSockets: readonly string[];
  /**
   * The sandbox user's uid and gid when the engine sees this computer's owners as they are (Docker on
   * Linux): the folder must then be readable (and for rw writable) by it. Absent: the engine maps owners
   * (Docker Desktop's file sharing), nothing to check.
   */
  sandboxUser?: { uid: number; gid: number };
}

/** A folder that may be shared: where it really is, and the group the sandbox user needs to reach it. */
export interface CheckedFolder {
  /** The real path (links resolved): what is mounted. */
  realPath: string;
  /** The folder's group when the sandbox user must join it to read or write it (Linux, gid ≥ 1000). */
  groupId?: number;
}

/** Groups below this are system groups (disk, tty, …): the sandbox user never joins one. */
const FIRST_USER_GID = 1000;

function refuse(message: string, reason: string): SandpitError {
  return new SandpitError('DENIED', message, { reason });
}

function expandHome(path: string, home: string, rules: PathRules): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || path.startsWith('~\\')) return rules.api.join(home, path.slice(2));
  return path;
}

/** The path as written and, when it exists, where it really is (a protected place reached by a link counts too). */
async function bothForms(path: string, rules: PathRules): Promise<string[]> {
  const resolved = rules.api.resolve(path);
  try {
    const real = await realpath(resolved);
    return real === resolved ? [resolved] : [resolved, real];
  } catch {
    return [resolved];
  }
}

/**
 * Checks a folder the person wants to share, after resolving every link in its path: refused (DENIED,
 * with the reason in plain words and `details.reason`) are the filesystem root, the home folder itself and
 * the folders holding every home, system folders and anything in them, Sandpit's data folder and the
 * protected folders (and anything inside or containing them), any folder holding a Docker socket, and a
 * folder the sandbox user could not read (or, for rw, write).
 */
export async function checkShareableFolder(input: string, mode: FolderMode, context: FolderCheckContext): Promise<CheckedFolder> {
  const rules = pathRules(context.platform);
  const home = rules.api.resolve(context.home);
  const typed = expandHome(input.trim(), home, rules);
  if (!rules.api.isAbsolute(typed)) {
    throw new SandpitError('INVALID_INPUT', `"${input}" is not a full path: give the whole path of the folder, such as ${rules.api.join(home, 'Documents', 'project')}.`, { reason: 'relative' });
  }
  let real: string;
  try {
    real = await realpath(rules.api.resolve(typed));
  } catch {
    throw new SandpitError('NOT_FOUND', `There is no folder at ${typed} on this computer.`, { reason: 'missing' });
  }
  const info = await stat(real);
  if (!info.isDirectory()) throw new SandpitError('INVALID_INPUT', `${typed} is a file, not a folder: share the folder that holds it.`, { reason: 'not-a-folder' });
  const via = real === rules.api.resolve(typed) ? real : `${typed} (a link to ${real})`;

  if (rules.api.parse(real).root === real) throw refuse(`${via} is the whole computer: share a folder inside it instead.`, 'root');
  if (rules.key(real) === rules.key(home)) {
    throw refuse(`${via} is your home folder: it holds your keys and settings. Share a folder inside it instead, such as ${rules.api.join(home, 'Documents')}.`, 'home');
  }
  if (rules.within(home, real)) throw refuse(`${via} contains your home folder (${home}): share a folder inside your home folder instead.`, 'home');
  for (const parent of homeParents(context.platform, context.env)) {
    if (rules.key(real) === rules.key(parent)) throw refuse(`${via} holds the home folders of everyone on this computer: share a folder inside your own instead.`, 'home');
  }
  for (const system of systemFolders(context.platform, context.env)) {
    if (rules.within(real, system)) {
      throw refuse(`${via} is ${rules.key(real) === rules.key(system) ? 'a system folder' : `inside the system folder ${system}`}: sharing it could let code read or change how this computer works.`, 'system');
    }
  }
  for (const data of await bothForms(context.dataFolder, rules)) {
    if (rules.within(real, data)) throw refuse(`${via} is inside Sandpit's own data folder (${context.dataFolder}): its token, audit log and artifacts stay out of every session's reach.`, 'sandpit-data');
    if (rules.within(data, real)) throw refuse(`${via} contains Sandpit's own data folder (${context.dataFolder}): its token, audit log and artifacts stay out of every session's reach. Share a folder that does not hold it.`, 'sandpit-data');
  }
  for (const socket of context.engineSockets) {
    for (const form of await bothForms(socket, rules)) {
      if (rules.within(form, real)) {
        throw refuse(`${via} holds the Docker socket (${socket}): with it, code could take over Docker and this computer. Share a folder that does not hold it.`, 'docker-socket');
      }
    }
  }
  for (const entry of context.protectedFolders) {
    const expanded = expandHome(entry, home, rules);
    if (!rules.api.isAbsolute(expanded)) continue;
    for (const form of await bothForms(expanded, rules)) {
      if (rules.within(real, form) || rules.within(form, real)) {
        const how = rules.within(real, form) ? (rules.key(real) === rules.key(form) ? 'is' : 'is inside') : 'contains';
        throw refuse(`${via} ${how} ${entry}, which holds keys, passwords or settings: it is on the protected list (Settings → Shared folders).`, 'protected');
      }
    }
  }
  return { realPath: real, ...sandboxAccess(real, info, mode, context) };
}

/** Whether the sandbox user can reach the folder, and the group it must join for that (Linux only). */
function sandboxAccess(path: string, info: { uid: number; gid: number; mode: number }, mode: FolderMode, context: FolderCheckContext): { groupId?: number } {
  const user = context.sandboxUser;
  if (!user) return {};
  const joins = info.gid >= FIRST_USER_GID && info.gid !== user.gid;
  const bits = info.uid === user.uid ? (info.mode >> 6) & 7 : info.gid === user.gid || joins ? (info.mode >> 3) & 7 : info.mode & 7;
  const need = mode === 'rw' ? 0o3 : 0o5;
  if ((bits & need) !== need) {
    const octal = (info.mode & 0o7777).toString(8);
    const fix =
      mode === 'rw'
        ? `Make it writable for its group (chmod -R g+w "${path}", with a group of your own, gid ${FIRST_USER_GID} or above: Sandpit adds the folder's group to the sandbox user), or share it read-only.`
        : `Make it readable (chmod -R o+rX "${path}", or g+rX with a group of your own, gid ${FIRST_USER_GID} or above).`;
    throw refuse(
      `The sandbox runs as user ${user.uid} and could not ${mode === 'rw' ? 'write to' : 'read'} ${path} (owner ${info.uid}, group ${info.gid}, mode ${octal}). ${fix}`,
      'permissions',
    );
  }
  return joins ? { groupId: info.gid } : {};
}
