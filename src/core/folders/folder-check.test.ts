// Every refused place, each with its reason in plain words, checked after links are resolved. Real
// folders and links in a temporary tree stand in for the home folder, the data folder and the socket.
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROTECTED_FOLDERS } from '../../shared/domain/shared-folder';
import { checkShareableFolder } from './folder-check';
import type { FolderCheckContext } from './folder-check';
import { folderMountPath, folderName } from './folder-placement';

describe('checkShareableFolder', () => {
  let root: string;
  let context: FolderCheckContext;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-folders-'));
    const home = join(root, 'home', 'me');
    for (const dir of ['Documents/project', '.ssh', '.aws', '.config/Sandpit/artifacts', 'run', 'plain']) await mkdir(join(home, dir), { recursive: true });
    await writeFile(join(home, 'run', 'docker.sock'), '');
    await writeFile(join(home, 'notes.txt'), 'x');
    await symlink('/etc', join(home, 'Documents', 'etc-link'));
    await symlink(join(home, '.ssh'), join(home, 'Documents', 'keys'));
    await symlink(home, join(root, 'home-link'));
    context = {
      platform: 'linux',
      env: {},
      home,
      dataFolder: join(home, '.config', 'Sandpit'),
      protectedFolders: DEFAULT_PROTECTED_FOLDERS,
      engineSockets: ['/var/run/docker.sock', join(home, 'run', 'docker.sock')],
    };
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  const refusal = async (path: string, mode: 'ro' | 'rw' = 'ro', ctx: Partial<FolderCheckContext> = {}): Promise<{ code: string; message: string; reason: string }> => {
    const error = await checkShareableFolder(path, mode, { ...context, ...ctx }).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string; details: { reason: string } },
    );
    if (!error) throw new Error(`${path} was not refused`);
    return { code: error.code, message: error.message, reason: error.details.reason };
  };

  it('accepts a folder inside the home folder, by its real path (~ works)', async () => {
    await expect(checkShareableFolder('~/Documents/project', 'ro', context)).resolves.toEqual({ realPath: join(context.home, 'Documents', 'project') });
  });

  it.each<[string, (home: string) => string, string, RegExp]>([
    ['the filesystem root', () => '/', 'root', /is the whole computer/],
    ['the home folder itself', (home) => home, 'home', /is your home folder/],
    ['the home folder through a link', () => join(root, 'home-link'), 'home', /a link to .* is your home folder/],
    ['a folder holding the home folder', () => join(root, 'home'), 'home', /contains your home folder/],
    ['/etc', () => '/etc', 'system', /is a system folder/],
    ['/usr/share', () => '/usr/share', 'system', /inside the system folder \/usr/],
    ['/proc', () => '/proc', 'system', /system folder/],
    ['/sys', () => '/sys', 'system', /system folder/],
    ['/dev', () => '/dev', 'system', /system folder/],
    ['/var', () => '/var', 'system', /system folder/],
    ['/boot', () => '/boot', 'system', /system folder/],
    ['/bin', () => '/bin', 'system', /system folder/],
    ['/lib', () => '/lib', 'system', /system folder/],
    ['a link to /etc inside a shareable folder', (home) => join(home, 'Documents', 'etc-link'), 'system', /a link to \/etc\) is a system folder/],
    ["Sandpit's data folder", (home) => join(home, '.config', 'Sandpit'), 'sandpit-data', /Sandpit's own data folder/],
    ["a folder inside Sandpit's data folder", (home) => join(home, '.config', 'Sandpit', 'artifacts'), 'sandpit-data', /inside Sandpit's own data folder/],
    ['~/.ssh', (home) => join(home, '.ssh'), 'protected', /\.ssh, which holds keys/],
    ['~/.ssh through a link', (home) => join(home, 'Documents', 'keys'), 'protected', /a link to .*\.ssh\) is ~\/\.ssh/],
    ['~/.aws', (home) => join(home, '.aws'), 'protected', /protected list/],
    ['a folder holding the Docker socket', (home) => join(home, 'run'), 'docker-socket', /holds the Docker socket/],
  ])('refuses %s, saying why', async (_what, path, reason, message) => {
    const error = await refusal(path(context.home));
    expect(error.code).toBe('DENIED');
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(message);
  });

  it('refuses a folder that holds Sandpit\'s data folder (when it is not protected otherwise)', async () => {
    const error = await refusal(join(context.home, '.config'), 'ro', { protectedFolders: [] });
    expect(error).toMatchObject({ reason: 'sandpit-data', message: expect.stringMatching(/contains Sandpit's own data folder/) as unknown });
  });

  it('takes the protected list from the settings', async () => {
    await expect(checkShareableFolder(join(context.home, 'plain'), 'ro', context)).resolves.toBeDefined();
    const error = await refusal(join(context.home, 'plain'), 'ro', { protectedFolders: ['~/plain'] });
    expect(error.reason).toBe('protected');
  });

  it.each([
    ['a relative path', 'Documents', 'INVALID_INPUT', /not a full path/],
    ['a missing folder', '/no/such/folder', 'NOT_FOUND', /There is no folder/],
  ])('refuses %s', async (_what, path, code, message) => {
    const error = await refusal(path);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('refuses a file', async () => {
    const error = await refusal(join(context.home, 'notes.txt'));
    expect(error.message).toMatch(/is a file, not a folder/);
  });

  it.runIf(process.getuid?.() === 0)('on Linux, refuses what the sandbox user could not reach, and joins a user group that can write', async () => {
    const user = { sandboxUser: { uid: 10001, gid: 10001 } };
    const closed = join(root, 'closed');
    await mkdir(closed);
    await chmod(closed, 0o700);
    expect((await refusal(closed, 'ro', user)).message).toMatch(/could not read .* mode 700/);
    const open = join(root, 'open');
    await mkdir(open);
    await chmod(open, 0o755);
    await expect(checkShareableFolder(open, 'ro', { ...context, ...user })).resolves.toEqual({ realPath: open });
    expect((await refusal(open, 'rw', user)).message).toMatch(/could not write to .*chmod -R g\+w/);
    const team = join(root, 'team');
    await mkdir(team);
    await chown(team, 0, 4242);
    await chmod(team, 0o2775);
    await expect(checkShareableFolder(team, 'rw', { ...context, ...user })).resolves.toEqual({ realPath: team, groupId: 4242 });
    // A system group (below 1000) is never joined.
    const disk = join(root, 'disk');
    await mkdir(disk);
    await chown(disk, 0, 6);
    await chmod(disk, 0o2775);
    expect((await refusal(disk, 'rw', user)).reason).toBe('permissions');
  });
});

describe('Windows and macOS places', () => {
  it('refuses the system folders of Windows, whatever the case', async () => {
    const { systemFolders, pathRules } = await import('./folder-rules');
    const rules = pathRules('win32');
    const system = systemFolders('win32', {});
    expect(system.some((s) => rules.within('c:\\windows\\system32', s))).toBe(true);
    expect(system.some((s) => rules.within('C:\\Users\\me\\Documents', s))).toBe(false);
  });

  it('refuses the system folders of macOS, also where /etc really is', async () => {
    const { systemFolders, pathRules } = await import('./folder-rules');
    const rules = pathRules('darwin');
    const system = systemFolders('darwin', {});
    for (const path of ['/System/Library', '/private/etc', '/Library/Keychains']) expect(system.some((s) => rules.within(path, s)), path).toBe(true);
    expect(system.some((s) => rules.within('/Users/me/Documents', s))).toBe(false);
  });
});

describe('where a folder appears', () => {
  it('names it after the folder, unique in the session', () => {
    expect(folderName('/home/me/My Data', [])).toBe('My-Data');
    expect(folderName('/home/me/data', ['data'])).toBe('data-2');
    expect(folderName('/home/me/..hidden', [])).toBe('hidden');
  });

  it('puts it under /workspace/shared, or where the person chose inside /workspace', () => {
    expect(folderMountPath(undefined, 'data', [])).toBe('/workspace/shared/data');
    expect(folderMountPath('/workspace/input/', 'data', [])).toBe('/workspace/input');
    expect(folderMountPath('input', 'data', [])).toBe('/workspace/input');
  });

  it.each([
    ['/etc/data', /inside \/workspace/],
    ['/workspace', /inside \/workspace/],
    ['/workspace/../etc', /inside \/workspace/],
    ['/workspace/a:b', /":"/],
  ])('refuses %s', (path, message) => {
    expect(() => folderMountPath(path, 'data', [])).toThrow(message);
  });

  it('refuses a place inside, around or at another shared folder', () => {
    const other = [{ name: 'a', hostPath: '/h/a', mountPath: '/workspace/shared/a', mode: 'ro' as const }];
    expect(() => folderMountPath('/workspace/shared/a/b', 'b', other)).toThrow(/be inside/);
    expect(() => folderMountPath('/workspace/shared', 'b', other)).toThrow(/hold/);
    expect(() => folderMountPath('/workspace/shared/a', 'b', other)).toThrow(/same place/);
  });
});
