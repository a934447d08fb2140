import { posix, win32 } from 'node:path';

/** Path arithmetic of one platform (the checks run for the computer Sandpit is on; tests pick one). */
export interface PathRules {
  platform: NodeJS.Platform;
  api: typeof posix;
  /** The same place, compared as the platform compares names (Windows ignores case). */
  key(path: string): string;
  /** `inner` is `outer` or somewhere inside it. */
  within(inner: string, outer: string): boolean;
}

export function pathRules(platform: NodeJS.Platform): PathRules {
  const api = platform === 'win32' ? win32 : posix;
  const key = (path: string): string => {
    const normal = api.resolve(path);
    return platform === 'win32' || platform === 'darwin' ? normal.toLowerCase() : normal;
  };
  return {
    platform,
    api,
    key,
    within(inner: string, outer: string): boolean {
      const rel = api.relative(key(outer), key(inner));
      return rel === '' || (!rel.startsWith('..') && !api.isAbsolute(rel));
    },
  };
}

/**
 * System folders of each platform: never shared, nor anything inside them (code could read or change
 * how the computer works). macOS paths are also listed under /private, where /etc and /var really are.
 */
export function systemFolders(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  if (platform === 'win32') {
    const drive = env.SystemDrive ?? 'C:';
    return [
      env.SystemRoot ?? `${drive}\\Windows`,
      env.ProgramFiles ?? `${drive}\\Program Files`,
      env['ProgramFiles(x86)'] ?? `${drive}\\Program Files (x86)`,
      env.ProgramData ?? `${drive}\\ProgramData`,
      `${drive}\\$Recycle.Bin`,
      `${drive}\\System Volume Information`,
    ];
  }
  if (platform === 'darwin') {
    return ['/System', '/Library', '/bin', '/sbin', '/usr', '/etc', '/var', '/dev', '/cores', '/private/etc', '/private/var', '/private/tmp', '/Volumes/Macintosh HD'];
  }
  return ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys', '/usr', '/var', '/snap', '/lost+found'];
}

/** Folders that hold every person's home (sharing one shares them all). */
export function homeParents(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  if (platform === 'win32') return [`${env.SystemDrive ?? 'C:'}\\Users`];
  if (platform === 'darwin') return ['/Users'];
  return ['/home'];
}
