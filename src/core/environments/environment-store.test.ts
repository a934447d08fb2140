import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';
import type { LogFields, Logger } from '../log';
import { EnvironmentStore, slugify } from './environment-store';

const isPosix = process.platform !== 'win32';
const HASH = 'b'.repeat(64);

async function rejection(promise: Promise<unknown>, code: ErrorCode): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (!isSandpitError(error, code)) throw error;
    return error.message;
  }
  throw new Error(`expected ${code}`);
}

function recordingLogger(): Logger & { warnings: Array<{ message: string; fields?: LogFields }> } {
  const warnings: Array<{ message: string; fields?: LogFields }> = [];
  const logger = {
    warnings,
    debug: (): void => undefined,
    info: (): void => undefined,
    warn: (message: string, fields?: LogFields): void => void warnings.push({ message, ...(fields ? { fields } : {}) }),
    error: (): void => undefined,
    child: (): Logger => logger,
  };
  return logger;
}

let parent: string;
let dir: string;
let clock: number;
let logger: ReturnType<typeof recordingLogger>;
const now = (): Date => new Date(Date.UTC(2026, 0, 1) + (clock += 1_000));
const open = (options: { offlineBase?: boolean } = {}): EnvironmentStore =>
  new EnvironmentStore({ dir, logger, now, presets: { offlineBase: options.offlineBase ?? true } });

beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'sandpit-environments-'));
  dir = join(parent, 'environments');
  clock = 0;
  logger = recordingLogger();
});

afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('EnvironmentStore', () => {
  it('lists the presets before anything is written, without writing', async () => {
    const list = await open().list();
    expect(list.map((e) => [e.id, e.preset])).toEqual([
      ['python', true],
      ['python-data', true],
      ['node', true],
      ['bash', true],
      ['typescript', true],
      ['r', true],
    ]);
    await expect(stat(dir)).rejects.toThrow(/ENOENT/);
  });

  it("checks an environment's extra allowed hosts and keeps them in canonical form", async () => {
    const store = open();
    await store.create({ name: 'Mirror', language: 'python', network: 'packages' });
    await expect(store.update('mirror', { allowedHosts: ['not a host'] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await store.update('mirror', { allowedHosts: ['Files.Example.ORG.', '*.mirror.example.com', 'files.example.org'] })).allowedHosts).toEqual(['files.example.org', '*.mirror.example.com']);
    expect((await store.get('mirror')).allowedHosts).toEqual(['files.example.org', '*.mirror.example.com']);
  });

  it('refuses a second environment with the same name, ignoring capitals and spaces (create, rename); copies get a free name', async () => {
    const store = open();
    await store.create({ name: 'Team data', language: 'python' });
    const other = await store.create({ name: 'Other', language: 'python' });
    const refusal = await rejection(store.create({ name: '  team   DATA ', language: 'python' }), 'CONFLICT');
    expect(refusal).toBe('An environment is already called “Team data” (capitals and spaces do not tell names apart). Choose another name.');
    await rejection(store.create({ name: 'PYTHON', language: 'python' }), 'CONFLICT');
    await rejection(store.update(other.id, { name: 'TEAM DATA' }), 'CONFLICT');
    expect((await store.update('team-data', { name: 'Team Data' })).name).toBe('Team Data');
    expect((await store.copy('team-data')).name).toBe('Team Data (copy)');
    expect((await store.copy('team-data')).name).toBe('Team Data (copy 2)');
    expect((await store.list()).filter((e) => e.name.toLowerCase() === 'team data')).toHaveLength(1);
  });

  it('refuses an allowed host no sandbox may reach, on create and on update (the one-click Allow), saying why and keeping the old list', async () => {
    const store = open();
    const created = store.create({ name: 'Metadata', language: 'python', network: 'packages', allowedHosts: ['files.example.org', '169.254.169.254'] });
    await expect(created).rejects.toMatchObject({ code: 'INVALID_INPUT', details: { fields: ['allowedHosts.1'] } });
    await expect(created).rejects.toThrow(/^allowedHosts\.1: "169\.254\.169\.254" is a link-local address, .*so it cannot be an allowed host\.$/);
    await expect(store.get('metadata')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await store.create({ name: 'Mirror', language: 'python', network: 'packages', allowedHosts: ['files.example.org'] });
    for (const host of ['localhost', '0x7f000001', '[::1]', 'metadata.google.internal', '*.localhost']) {
      await expect(store.update('mirror', { allowedHosts: ['files.example.org', host] }), host).rejects.toThrow(/^allowedHosts\.1: .*so it cannot be an allowed host\.$/);
    }
    expect((await store.get('mirror')).allowedHosts).toEqual(['files.example.org']);
  });

  it('keeps a stored environment whose file lists a host now refused: the host is left out (and logged), nothing else', async () => {
    await open().create({ name: 'Mirror', language: 'python', network: 'packages', allowedHosts: ['files.example.org'] });
    const path = join(dir, 'mirror.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as { allowedHosts: string[] };
    stored.allowedHosts = ['files.example.org', 'localhost', '169.254.169.254'];
    await writeFile(path, JSON.stringify(stored));
    const env = await open().get('mirror');
    expect(env.name).toBe('Mirror');
    expect(env.allowedHosts).toEqual(['files.example.org']);
    expect(logger.warnings.filter((w) => w.message === 'left out an allowed host no sandbox may reach').map((w) => w.fields?.host)).toEqual(['localhost', '169.254.169.254']);
  });

  it('creates, gets, lists, updates and removes an environment', async () => {
    const store = open();
    const created = await store.create({ name: 'Web scraping', language: 'python', packages: { pip: ['requests >= 2.31', 'beautifulsoup4'] } });
    expect(created).toEqual({
      id: 'web-scraping',
      name: 'Web scraping',
      language: 'python',
      base: 'python',
      packages: { pip: ['requests>=2.31', 'beautifulsoup4'], npm: [], apt: [], cran: [] },
      network: 'none',
      limits: {},
      allowedHosts: [],
      preset: false,
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
    });
    expect(await store.get('web-scraping')).toEqual(created);
    expect((await store.list()).map((e) => e.id)).toEqual(['python', 'python-data', 'node', 'bash', 'typescript', 'r', 'web-scraping']);
    expect(JSON.parse(await readFile(join(dir, 'web-scraping.json'), 'utf8'))).toEqual(created);

    const updated = await store.update('web-scraping', { network: 'packages', packages: { apt: ['jq'] }, limits: { memoryMb: 1_024 }, description: 'Scrapes' });
    expect(updated).toMatchObject({
      id: 'web-scraping',
      network: 'packages',
      packages: { pip: ['requests>=2.31', 'beautifulsoup4'], npm: [], apt: ['jq'] },
      limits: { memoryMb: 1_024 },
      description: 'Scrapes',
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:02.000Z',
    });
    expect(await open().get('web-scraping')).toEqual(updated);
    expect((await store.update('web-scraping', { description: '' })).description).toBeUndefined();

    await store.remove('web-scraping');
    expect(await rejection(store.get('web-scraping'), 'NOT_FOUND')).toMatch(/web-scraping/);
    await rejection(store.remove('web-scraping'), 'NOT_FOUND');
    await rejection(store.update('web-scraping', { name: 'x' }), 'NOT_FOUND');
  });

  it.runIf(isPosix)('writes files 0600 in a 0700 folder and leaves no temp files', async () => {
    const store = open();
    await store.create({ name: 'A', language: 'bash' });
    await store.update('a', { name: 'B' });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'a.json'))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('names the bad package and writes nothing', async () => {
    const store = open();
    const message = await rejection(store.create({ name: 'Bad', language: 'python', packages: { pip: ['numpy', 'pandas; rm -rf /'] } }), 'INVALID_INPUT');
    expect(message).toContain('"pandas; rm -rf /"');
    expect(await rejection(store.create({ name: 'Bad', language: 'javascript', packages: { npm: ['Lodash'] } }), 'INVALID_INPUT')).toContain('"Lodash"');
    expect(await rejection(store.create({ name: 'Bad', language: 'python', packages: { pip: ['NumPy', 'numpy==2'] } }), 'INVALID_INPUT')).toMatch(/"numpy" is listed twice/);
    expect(await rejection(store.create({ name: 'Bad', language: 'python', packages: { npm: ['lodash'] } }), 'INVALID_INPUT')).toMatch(/packages\.npm: npm packages need language javascript/);
    expect(await rejection(store.create({ name: '', language: 'python' }), 'INVALID_INPUT')).toMatch(/^Invalid environment: name/);
    await rejection(store.update('python-2', { packages: { pip: ['--index-url=http://evil'] } }), 'NOT_FOUND');
    await store.create({ name: 'Good', language: 'python' });
    expect(await rejection(store.update('good', { packages: { pip: ['--index-url=http://evil'] } }), 'INVALID_INPUT')).toContain('--index-url');
    expect((await store.get('good')).packages.pip).toEqual([]);
    expect(await readdir(dir)).toEqual(['good.json']);
  });

  it('refuses ids that are not slugs before touching the disk', async () => {
    const store = open();
    for (const id of ['../etc/passwd', 'A', '', 'x.json']) await rejection(store.get(id), 'INVALID_INPUT');
    await rejection(store.remove('../x'), 'INVALID_INPUT');
  });

  it('keeps presets immutable but lets them be copied', async () => {
    const store = open();
    expect(await rejection(store.update('python', { name: 'Mine' }), 'CONFLICT')).toMatch(/copy it instead/);
    expect(await rejection(store.remove('node'), 'CONFLICT')).toMatch(/preset/);
    const copy = await store.copy('python-data');
    expect(copy).toMatchObject({ id: 'python-data-copy', name: 'Python (data) (copy)', base: 'python-data', preset: false });
    await rejection(store.copy('python', { name: 'python' }), 'CONFLICT');
    const renamed = await store.copy('python', { name: 'Python!' });
    expect(renamed.id).toBe('python-2');
    expect((await store.update('python-2', { packages: { pip: ['rich'] } })).packages.pip).toEqual(['rich']);
    expect((await store.get('python')).packages.pip).toEqual([]);
  });

  it('follows the offline base option for the data preset', async () => {
    expect((await open({ offlineBase: false }).get('python-data')).packages.pip).toEqual(['numpy', 'pandas', 'matplotlib']);
    expect((await open({ offlineBase: true }).get('python-data')).packages.pip).toEqual([]);
  });

  it('gives unique ids: slug, then -2, -3…, never a preset id', async () => {
    const store = open();
    const ids = [];
    for (const name of ['Data Science', 'Data-Science', 'Data  science!', 'Node.js!', 'Ünïcödé', '!!!']) ids.push((await store.create({ name, language: 'python' })).id);
    expect(ids).toEqual(['data-science', 'data-science-2', 'data-science-3', 'node-js', 'unicode', 'environment']);
    expect((await store.create({ name: 'node', language: 'javascript' })).id).toBe('node-2');
    expect(slugify('x'.repeat(100))).toHaveLength(40);
  });

  it('serializes concurrent creates: every one gets its own id and file, and of one name only one is made', async () => {
    const store = open();
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => store.create({ name: `Same${'!'.repeat(i)}`, language: 'python' })));
    const twins = await Promise.allSettled(Array.from({ length: 4 }, () => store.create({ name: 'Twin', language: 'python' })));
    expect(twins.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
    await store.remove('twin');
    const ids = created.map((e) => e.id);
    expect(new Set(ids).size).toBe(12);
    expect(ids[0]).toBe('same');
    expect((await readdir(dir)).sort()).toEqual(ids.map((id) => `${id}.json`).sort());
    // Updates queue up too: none is lost.
    await Promise.all([store.update('same', { packages: { pip: ['a'] } }), store.update('same', { packages: { apt: ['jq'] } })]);
    expect((await store.get('same')).packages).toEqual({ pip: ['a'], npm: [], apt: ['jq'], cran: [] });
  });

  it('skips corrupt files with a warning (once), never failing list()', async () => {
    const store = open();
    await store.create({ name: 'Fine', language: 'python' });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'broken.json'), '{"id": "broken", "name": ');
    await writeFile(join(dir, 'wrong-id.json'), await readFile(join(dir, 'fine.json')));
    await writeFile(join(dir, 'bad-spec.json'), (await readFile(join(dir, 'fine.json'), 'utf8')).replace('"pip": []', '"pip": ["x; rm -rf /"]').replace('"id": "fine"', '"id": "bad-spec"'));
    await writeFile(join(dir, 'README.txt'), 'not an environment');
    await mkdir(join(dir, 'folder.json'));

    expect((await store.list()).map((e) => e.id)).toEqual(['python', 'python-data', 'node', 'bash', 'typescript', 'r', 'fine']);
    expect(logger.warnings.map((w) => w.fields?.path).sort()).toEqual(
      ['bad-spec.json', 'broken.json', 'folder.json', 'wrong-id.json'].map((name) => join(dir, name)),
    );
    expect(logger.warnings.every((w) => w.message === 'skipped a corrupt environment file')).toBe(true);
    await store.list();
    expect(logger.warnings).toHaveLength(4);
    await rejection(store.get('broken'), 'NOT_FOUND');
    // A corrupt file still holds its id.
    expect((await store.create({ name: 'Broken', language: 'python' })).id).toBe('broken-2');
  });

  it('treats a file claiming to be a preset as a plain environment, and presets from code', async () => {
    const store = open();
    await store.create({ name: 'Mine', language: 'python' });
    const mine = JSON.parse(await readFile(join(dir, 'mine.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'mine.json'), JSON.stringify({ ...mine, preset: true }));
    expect((await store.get('mine')).preset).toBe(false);
    await store.remove('mine');
    // A preset's file cannot change its definition, only carry its build state.
    await writeFile(join(dir, 'python.json'), JSON.stringify({ ...mine, id: 'python', name: 'Hacked', packages: { pip: ['evil'], npm: [], apt: [] } }));
    expect(await store.get('python')).toMatchObject({ name: 'Python', packages: { pip: [] }, preset: true });
  });

  it('records build state and the last good image, for presets too, without bumping updatedAt', async () => {
    const store = open();
    const created = await store.create({ name: 'Plot', language: 'python', packages: { pip: ['matplotlib'] } });
    await store.setBuild('plot', { state: 'building', startedAt: '2026-01-01T01:00:00.000Z' });
    const image = { tag: 'sandpit-env/plot:bbbbbbbbbbbb', builtAt: '2026-01-01T01:01:00.000Z', hash: HASH };
    const ready = await store.setBuilt('plot', image, { state: 'ready', startedAt: '2026-01-01T01:00:00.000Z', finishedAt: '2026-01-01T01:01:00.000Z' });
    expect(ready).toMatchObject({ image, build: { state: 'ready' }, updatedAt: created.updatedAt });

    // A new definition keeps the last good image (its hash tells the builder it is stale).
    const edited = await store.update('plot', { packages: { pip: ['matplotlib', 'seaborn'] } });
    expect(edited.image).toEqual(image);
    await store.setBuild('plot', { state: 'failed', error: 'No matching distribution found for seabornx', failedPackage: 'seabornx' });
    expect(await open().get('plot')).toMatchObject({ image, build: { state: 'failed', failedPackage: 'seabornx' } });

    await store.setBuilt('node', { ...image, tag: 'sandpit/node:1' }, { state: 'ready' });
    expect(await open().get('node')).toMatchObject({ preset: true, name: 'Node.js', image: { tag: 'sandpit/node:1' }, build: { state: 'ready' } });
    await rejection(store.remove('node'), 'CONFLICT');

    await rejection(store.setBuild('plot', { state: 'done' } as never), 'INVALID_INPUT');
    await rejection(store.setBuilt('plot', { ...image, hash: 'x' }, { state: 'ready' }), 'INVALID_INPUT');
    await rejection(store.setBuilt('plot', image, { state: 'done' } as never), 'INVALID_INPUT');
    await rejection(store.setBuild('gone', { state: 'idle' }), 'NOT_FOUND');
  });

  it('moves to the default base when the language changes and the base cannot follow', async () => {
    const store = open();
    await store.create({ name: 'Shell', language: 'bash', base: 'python-data' });
    expect((await store.update('shell', { language: 'python' })).base).toBe('python-data');
    expect((await store.update('shell', { language: 'javascript' })).base).toBe('node');
    expect(await rejection(store.update('shell', { base: 'python' }), 'INVALID_INPUT')).toMatch(/javascript runs on base "node"/);
    await store.create({ name: 'Py', language: 'python', packages: { pip: ['numpy'] } });
    expect(await rejection(store.update('py', { language: 'javascript' }), 'INVALID_INPUT')).toMatch(/pip packages need/);
    expect((await store.update('py', { language: 'javascript', packages: { pip: [], npm: ['lodash'] } })).packages).toEqual({ pip: [], npm: ['lodash'], apt: [], cran: [] });
  });
});
