import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectContextFiles, executorImageHash, isExcluded, packContext } from './build-context';
import { loadFlavour } from './image-bases';
import type { FlavourDefinition } from './image-bases';
import { defaultImagesDir } from './images-dir';

const definition: FlavourDefinition = {
  language: 'python',
  dockerfileDir: 'python',
  registry: 'python:3.12-slim',
  bootstrap: { tag: 'sandpit-base/python:bookworm', suite: 'bookworm', packages: ['python3'] },
};
const base = { tag: 'sandpit-base/python:bookworm', id: 'sha256:aaa' };

let dir: string;

async function put(path: string, content: string): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

async function hashNow(b = base): Promise<string> {
  return executorImageHash('python', b, await collectContextFiles(dir, definition));
}

async function tarEntries(
  tar: Buffer,
): Promise<Array<{ name: string; mode: number | undefined; type: string | null | undefined; body: string }>> {
  const out: Array<{ name: string; mode: number | undefined; type: string | null | undefined; body: string }> = [];
  const ex = extract();
  Readable.from([tar]).pipe(ex);
  for await (const entry of ex) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    out.push({
      name: entry.header.name,
      mode: entry.header.mode,
      type: entry.header.type,
      body: Buffer.concat(chunks).toString(),
    });
  }
  return out;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandpit-ctx-'));
  await put(
    'python/Dockerfile',
    'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY agents/python/agent.py /opt/sandpit/agent.py\n',
  );
  await put('agents/python/agent.py', 'print("agent")\n');
  await put('agents/python/agent.test.ts', 'test file');
  await put('agents/python/agent.docker.test.ts', 'docker test file');
  await put('agents/python/__pycache__/agent.cpython-311.pyc', 'bytecode');
  await put('agents/javascript/agent.mjs', 'other language');
  await put('agents/PROTOCOL.md', 'not copied');
  await put('javascript/Dockerfile', 'FROM other');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('collectContextFiles', () => {
  it('takes the Dockerfile dir and the language agent dir, without tests or caches, sorted', async () => {
    const files = await collectContextFiles(dir, definition);
    expect(files.map((f) => f.path)).toEqual(['agents/python/agent.py', 'python/Dockerfile']);
  });

  it('says which Dockerfile is missing', async () => {
    await rm(join(dir, 'python/Dockerfile'));
    await expect(collectContextFiles(dir, definition)).rejects.toThrow(/no Dockerfile at .*python\/Dockerfile/);
  });

  it('says which source directory is missing', async () => {
    await rm(join(dir, 'agents/python'), { recursive: true });
    await expect(collectContextFiles(dir, definition)).rejects.toThrow(/agents\/python does not exist/);
  });

  it("takes every module of the repository's JavaScript agent and none of its tests", async () => {
    const imagesDir = defaultImagesDir();
    const files = await collectContextFiles(imagesDir, await loadFlavour(imagesDir, 'node'));
    const modules = (await readdir(join(imagesDir, 'agents/javascript'))).filter((f) => f.endsWith('.js')).sort();
    expect(modules).toEqual(expect.arrayContaining(['main.js', 'io-thread.js', 'cell-compiler.js']));
    expect(files.map((f) => f.path)).toEqual([
      ...modules.map((f) => `agents/javascript/${f}`),
      'javascript/Dockerfile',
    ]);
  });

  it("takes the repository's Python agent, its entry and every module of its package, and none of its tests or caches", async () => {
    const imagesDir = defaultImagesDir();
    const files = await collectContextFiles(imagesDir, await loadFlavour(imagesDir, 'python'));
    const modules = (await readdir(join(imagesDir, 'agents/python/sandpit_agent'))).filter((f) => f.endsWith('.py')).sort();
    expect(modules).toEqual(expect.arrayContaining(['__init__.py', 'main.py', 'channel.py', 'python_kernel.py', 'bash_kernel.py']));
    expect(files.map((f) => f.path)).toEqual([
      'agents/python/agent.py',
      ...modules.map((f) => `agents/python/sandpit_agent/${f}`),
      'python/Dockerfile',
    ]);
  });

  it('excludes test files and caches by pattern', () => {
    expect(isExcluded('agents/python/x.test.ts')).toBe(true);
    expect(isExcluded('agents/javascript/x.test.mjs')).toBe(true);
    expect(isExcluded('agents/python/__pycache__/a.pyc')).toBe(true);
    expect(isExcluded('agents/python/agent.py')).toBe(false);
    expect(isExcluded('agents/python/testing.py')).toBe(false);
  });
});

describe('executorImageHash', () => {
  it('is stable for the same files and base', async () => {
    const first = await hashNow();
    expect(await hashNow()).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when the agent or the Dockerfile changes', async () => {
    const first = await hashNow();
    await put('agents/python/agent.py', 'print("agent v2")\n');
    const second = await hashNow();
    expect(second).not.toBe(first);
    await put('python/Dockerfile', 'FROM x\n');
    expect(await hashNow()).not.toBe(second);
  });

  it('changes when a file is added or made executable', async () => {
    const first = await hashNow();
    await chmod(join(dir, 'agents/python/agent.py'), 0o755);
    const second = await hashNow();
    expect(second).not.toBe(first);
    await put('agents/python/helper.py', 'x = 1\n');
    const third = await hashNow();
    expect(third).not.toBe(second);
    await put('agents/python/lib/nested.py', 'y = 2\n');
    expect(await hashNow()).not.toBe(third);
  });

  it('changes with the base image tag or id', async () => {
    const first = await hashNow();
    expect(await hashNow({ ...base, id: 'sha256:bbb' })).not.toBe(first);
    expect(await hashNow({ ...base, tag: 'python:3.12-slim' })).not.toBe(first);
  });

  it('ignores tests, caches and other languages', async () => {
    const first = await hashNow();
    await put('agents/python/agent.test.ts', 'changed test');
    await put('agents/python/__pycache__/other.pyc', 'more bytecode');
    await put('agents/javascript/agent.mjs', 'changed');
    await put('agents/PROTOCOL.md', 'changed');
    expect(await hashNow()).toBe(first);
  });
});

describe('packContext', () => {
  it('holds exactly the context files as root-owned regular files', async () => {
    await chmod(join(dir, 'agents/python/agent.py'), 0o700);
    const tar = await packContext(await collectContextFiles(dir, definition));
    const entries = await tarEntries(tar);
    expect(entries.map((e) => e.name)).toEqual(['agents/python/agent.py', 'python/Dockerfile']);
    expect(entries.every((e) => e.type === 'file')).toBe(true);
    expect(entries[0]).toMatchObject({ mode: 0o755, body: 'print("agent")\n' });
    expect(entries[1]?.mode).toBe(0o644);
    expect(entries[1]?.body).toContain('FROM ${BASE_IMAGE}');
  });

  it('is byte-for-byte reproducible', async () => {
    const files = await collectContextFiles(dir, definition);
    expect((await packContext(files)).equals(await packContext(files))).toBe(true);
  });
});
