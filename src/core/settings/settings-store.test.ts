import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { Settings } from '../../shared/domain/settings';
import { defaultConfig } from '../config';
import { silentLogger } from '../log';
import type { Logger } from '../log';
import { configWithSettings, settingsFromConfig } from './settings-config';
import { settingsPath } from './settings-file';
import { SettingsStore } from './settings-store';

let home: string;
const config = (): ReturnType<typeof defaultConfig> => defaultConfig({ home, port: 7411, poolSize: 2, pipIndexUrl: 'https://pypi.org/simple' });
const open = (log: Logger = silentLogger): Promise<SettingsStore> => SettingsStore.open({ home, base: settingsFromConfig(config()), log });

async function invalid(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (isSandpitError(error, 'INVALID_INPUT')) return error.message;
    throw error;
  }
  throw new Error('expected INVALID_INPUT');
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sandpit-settings-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('SettingsStore', () => {
  it('starts from the configuration when nothing is stored, and writes no file until a change', async () => {
    const store = await open();
    expect(store.current).toMatchObject({
      poolSize: 2,
      port: 7411,
      approvals: { defaultPolicy: 'free', perClient: {}, timeoutSeconds: 120 },
      egress: { pipIndexUrl: 'https://pypi.org/simple', extraHosts: [] },
      auditRetentionDays: 0,
    });
    expect(store.current.defaultLimits).toEqual(config().defaultLimits);
    expect(store.view()).toMatchObject({ dataFolder: home, restartNeeded: [] });
    await expect(stat(settingsPath(home))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('saves only what was set, owner-only, and the next start reads it back', async () => {
    const store = await open();
    const view = await store.update({ poolSize: 0, defaultLimits: { memoryMb: 256 }, approvals: { defaultPolicy: 'ask-new' } });
    expect(view).toMatchObject({ poolSize: 0, approvals: { defaultPolicy: 'ask-new', timeoutSeconds: 120 } });
    expect(view.defaultLimits).toMatchObject({ memoryMb: 256, cpus: 1 });
    const file = JSON.parse(await readFile(settingsPath(home), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual({ poolSize: 0, defaultLimits: { memoryMb: 256 }, approvals: { defaultPolicy: 'ask-new' } });
    expect((await stat(settingsPath(home))).mode & 0o777).toBe(0o600);

    const again = await open();
    expect(again.current).toMatchObject({ poolSize: 0, approvals: { defaultPolicy: 'ask-new' } });
    expect(configWithSettings(config(), again.current)).toMatchObject({ poolSize: 0, defaultLimits: { memoryMb: 256, cpus: 1 } });
  });

  it('merges approvals per client (null removes one) and egress per field; defaultLimits null goes back to the defaults', async () => {
    const store = await open();
    await store.update({ approvals: { perClient: { cursor: 'ask-every', claude: 'ask-new' } }, egress: { pipIndexUrl: 'http://mirror.local/simple' } });
    await store.update({ approvals: { perClient: { cursor: null } }, defaultLimits: { cpus: 2 } });
    expect(store.current.approvals.perClient).toEqual({ claude: 'ask-new' });
    expect(store.current.egress).toMatchObject({ pipIndexUrl: 'http://mirror.local/simple', npmRegistryUrl: config().npmRegistryUrl });
    await store.update({ defaultLimits: null });
    expect(store.current.defaultLimits).toEqual(config().defaultLimits);
  });

  it('refuses bad values with INVALID_INPUT naming the field, and keeps the old settings', async () => {
    const store = await open();
    expect(await invalid(() => store.update({ poolSize: -1 }))).toMatch(/^patch\.poolSize: /);
    expect(await invalid(() => store.update({ egress: { pipIndexUrl: 'ftp://mirror/simple' } }))).toMatch(/patch\.egress\.pipIndexUrl: must be an http/);
    expect(await invalid(() => store.update({ egress: { extraHosts: ['files.example.org', '*.org'] } }))).toMatch(/^patch\.egress\.extraHosts\.1: .*too broad/);
    expect(await invalid(() => store.update({ egress: { extraHosts: ['files.example.org', '0x7f000001'] } }))).toMatch(
      /^patch\.egress\.extraHosts\.1: "0x7f000001" is the address 127\.0\.0\.1, which is this computer: .*so it cannot be an allowed host\.$/,
    );
    expect(await invalid(() => store.update({ approvals: { defaultPolicy: 'sometimes' } }))).toMatch(/patch\.approvals\.defaultPolicy/);
    expect(await invalid(() => store.update({ approvals: { timeoutSeconds: 1 } }))).toMatch(/patch\.approvals\.timeoutSeconds/);
    expect(await invalid(() => store.update({ colour: 'blue' }))).toMatch(/colour/);
    expect(await invalid(() => store.update({ defaultLimits: { memoryMb: 1 } }))).toMatch(/patch\.defaultLimits\.memoryMb/);
    expect(await invalid(() => store.update({ port: 80 }))).toMatch(/patch\.port/);
    expect(store.current.poolSize).toBe(2);
    await expect(stat(settingsPath(home))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps the protected folders as a whole list (null goes back to the defaults), the rw approval option per field', async () => {
    const store = await open();
    expect(store.current.protectedFolders).toEqual(expect.arrayContaining(['~/.ssh', '~/.aws', '~/.gnupg', '~/.config']));
    await store.update({ protectedFolders: ['~/.ssh', '/srv/secrets'], approvals: { askWritableFolders: true } });
    expect(store.current.protectedFolders).toEqual(['~/.ssh', '/srv/secrets']);
    expect(store.current.approvals).toMatchObject({ askWritableFolders: true, defaultPolicy: 'free' });
    expect(await invalid(() => store.update({ protectedFolders: ['.ssh'] }))).toMatch(/^patch\.protectedFolders\.0: must be a full path/);
    await store.update({ protectedFolders: null });
    expect(store.current.protectedFolders).toContain('~/.gnupg');
  });

  it('stores host entries in canonical form', async () => {
    const store = await open();
    await store.update({ egress: { extraHosts: ['Files.Example.ORG.', '*.Mirror.example.com'] } });
    expect(store.current.egress.extraHosts).toEqual(['files.example.org', '*.mirror.example.com']);
  });

  it('lists settings that need a restart while they differ from start-up', async () => {
    const store = await open();
    await store.update({ port: 8000, poolSize: 3 });
    expect(store.view().restartNeeded).toEqual(['port']);
    // A new Docker address is used at once: no restart.
    await store.update({ dockerHost: 'tcp://127.0.0.1:2375' });
    expect(store.view().restartNeeded).toEqual(['port']);
    await store.update({ port: 7411, dockerHost: null });
    expect(store.view().restartNeeded).toEqual([]);
  });

  it('saves nothing a check refuses (a Docker address that does not answer)', async () => {
    const store = await open();
    store.validateWith(async (next) => {
      if (next.dockerHost === 'unix:///tmp/nope.sock') throw new Error('There is no Docker engine answering at /tmp/nope.sock.');
    });
    await expect(store.update({ dockerHost: 'unix:///tmp/nope.sock' })).rejects.toThrow(/no Docker engine answering/);
    expect(store.current.dockerHost).toBeUndefined();
    await store.update({ dockerHost: 'tcp://127.0.0.1:2375' });
    expect(store.current.dockerHost).toBe('tcp://127.0.0.1:2375');
  });

  it('tells listeners what changed, once per effective change, in order', async () => {
    const store = await open();
    const seen: Array<[Settings, Settings]> = [];
    store.onChange((next, previous) => seen.push([next, previous]));
    await Promise.all([store.update({ poolSize: 4 }), store.update({ poolSize: 5 }), store.update({ poolSize: 5 })]);
    expect(seen.map(([next, previous]) => [previous.poolSize, next.poolSize])).toEqual([
      [2, 4],
      [4, 5],
    ]);
    expect(JSON.parse(await readFile(settingsPath(home), 'utf8'))).toEqual({ poolSize: 5 });
  });

  it('starts with the defaults when the file is not JSON, and skips single invalid settings, with warnings', async () => {
    const warn = vi.fn();
    const log: Logger = { ...silentLogger, warn, child: () => log };
    await writeFile(settingsPath(home), '{ not json');
    expect((await open(log)).current.poolSize).toBe(2);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/not JSON/), expect.anything());

    await writeFile(settingsPath(home), JSON.stringify({ poolSize: 'many', port: 9000, approvals: { defaultPolicy: 'ask-every' } }));
    const store = await open(log);
    expect(store.current).toMatchObject({ poolSize: 2, port: 9000, approvals: { defaultPolicy: 'ask-every', timeoutSeconds: 120 } });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/not valid/), expect.objectContaining({ setting: 'poolSize' }));
  });
});
