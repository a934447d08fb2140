import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFlavour, loadImageBases, resolveBaseSource } from './image-bases';
import { defaultImagesDir } from './images-dir';

describe('executor-image/bases.json', () => {
  it('defines python, python-data and node with their bases', async () => {
    const bases = await loadImageBases(defaultImagesDir());
    expect(bases.python).toMatchObject({
      language: 'python',
      dockerfileDir: 'python',
      registry: 'python:3.12-slim',
      bootstrap: { tag: 'sandpit-base/python:bookworm-requests-curl', packages: ['python3', 'python3-venv', 'python3-requests', 'curl'] },
    });
    expect(bases['python-data']).toMatchObject({
      dockerfileDir: 'python',
      registry: null,
      bootstrap: {
        tag: 'sandpit-base/python-data:bookworm-pandas-requests-curl',
        packages: ['python3', 'python3-venv', 'python3-matplotlib', 'python3-numpy', 'python3-pandas', 'python3-requests', 'curl'],
      },
    });
    expect(bases.node).toMatchObject({
      language: 'javascript',
      dockerfileDir: 'javascript',
      registry: 'node:22-slim',
      bootstrap: { tag: 'sandpit-base/node:bookworm-npm-curl', packages: ['nodejs', 'npm', 'curl'] },
    });
  });

  it('names the known flavours when asked for an unknown one', async () => {
    await expect(loadFlavour(defaultImagesDir(), 'cobol')).rejects.toThrow(
      /Unknown image flavour "cobol" \(known: python, python-data, node, r\)/,
    );
  });

  it('rejects a definition that escapes the images dir', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandpit-bases-'));
    try {
      await writeFile(
        join(dir, 'bases.json'),
        JSON.stringify({
          x: {
            language: 'python',
            dockerfileDir: '../etc',
            registry: null,
            bootstrap: { tag: 'a:b', suite: 'bookworm', packages: ['p'] },
          },
        }),
      );
      await expect(loadImageBases(dir)).rejects.toThrow(/Invalid .*bases\.json: x\.dockerfileDir/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('resolveBaseSource', () => {
  it('prefers the explicit choice, then SANDPIT_BASE_SOURCE, then auto', () => {
    expect(resolveBaseSource('registry', { SANDPIT_BASE_SOURCE: 'bootstrap' })).toBe('registry');
    expect(resolveBaseSource(undefined, { SANDPIT_BASE_SOURCE: 'bootstrap' })).toBe('bootstrap');
    expect(resolveBaseSource(undefined, {})).toBe('auto');
    expect(resolveBaseSource(undefined, { SANDPIT_BASE_SOURCE: '' })).toBe('auto');
  });

  it('refuses an unknown value instead of ignoring it', () => {
    expect(() => resolveBaseSource(undefined, { SANDPIT_BASE_SOURCE: 'hub' })).toThrow(
      /must be one of auto, registry, bootstrap/,
    );
  });
});
