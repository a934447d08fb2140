import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { silentLogger } from '../log';
import { KeptStore, isKeptSession } from './kept-store';
import type { KeptRecord } from './kept-store';
import { resumeNotice } from './resume-notice';

const record = (id: string): KeptRecord => ({
  version: 1,
  id,
  name: 'Python 3',
  language: 'python',
  image: 'sandpit/python:1',
  limits: DEFAULT_LIMITS,
  environment: { id: 'python', name: 'Python' },
  networkPolicy: 'none',
  isolation: 'standard',
  client: 'Claude Desktop',
  madeBy: 'mcp:abc',
  createdAt: '2026-12-01T10:00:00.000Z',
  idleTtlMs: 1_800_000,
  packages: ['requests'],
  sandbox: { containerId: 'c1', channel: 'socket', runtime: 'runc', agentDir: '/tmp/run/i1/ses-a', workspace: { image: '/h/workspaces/i1/ses-a.img', device: '/dev/loop3' } },
});

let home: string;
let runRoot: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sandpit-kept-home-'));
  runRoot = await mkdtemp(join(tmpdir(), 'sandpit-kept-run-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(runRoot, { recursive: true, force: true });
});

describe('the kept-session store', () => {
  it('saves a record in the data folder (private) and a marker in the run folder, lists it back, and removes both', async () => {
    const store = new KeptStore(home, runRoot, silentLogger);
    await store.save(record('ses-a'));
    expect(await store.list()).toEqual([record('ses-a')]);
    expect((await stat(join(home, 'kept-sessions', 'ses-a.json'))).mode & 0o077).toBe(0);
    expect(JSON.parse(await readFile(join(runRoot, 'kept', 'ses-a.json'), 'utf8'))).toEqual({ home });
    expect(await isKeptSession(runRoot, 'ses-a')).toBe(true);
    await store.remove('ses-a');
    expect(await store.list()).toEqual([]);
    expect(await isKeptSession(runRoot, 'ses-a')).toBe(false);
  });

  it('keeps nothing once the data folder that kept it is gone, and never reads outside the markers folder', async () => {
    const store = new KeptStore(home, runRoot, silentLogger);
    await store.save(record('ses-b'));
    await rm(home, { recursive: true, force: true });
    expect(await isKeptSession(runRoot, 'ses-b')).toBe(false);
    expect(await isKeptSession(runRoot, '../kept/ses-b')).toBe(false);
    expect(await isKeptSession(runRoot, 'owner.json')).toBe(false);
  });

  it('leaves a record it cannot read on disk and lists the others', async () => {
    const store = new KeptStore(home, runRoot, silentLogger);
    await store.save(record('ses-c'));
    await writeFile(join(home, 'kept-sessions', 'ses-d.json'), '{"version": 2}');
    expect((await store.list()).map((r) => r.id)).toEqual(['ses-c']);
    expect(await readFile(join(home, 'kept-sessions', 'ses-d.json'), 'utf8')).toBe('{"version": 2}');
  });
});

describe('the first result after a resume', () => {
  it('says plainly what was kept and what was not, after a restart and after an idle pause', () => {
    expect(resumeNotice('quit', 1_800_000)).toBe(
      'This session was resumed after Sandpit restarted: files and installed packages are here, variables from earlier runs are not — re-run your code to rebuild them, or fork the session with replay: true, which runs its earlier successful runs again in the fork.',
    );
    expect(resumeNotice('idle', 1_800_000)).toBe(
      'This session was paused after 30 minutes without use, to free its memory, and has been resumed: files and installed packages are here, variables from earlier runs are not (memory cannot be saved on this machine) — re-run your code to rebuild them, or fork the session with replay: true, which runs its earlier successful runs again in the fork.',
    );
  });
});
