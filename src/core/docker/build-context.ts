import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { pack } from 'tar-stream';
import { SandpitError } from '../../shared/api/errors';
import type { FlavourDefinition } from './image-bases';

/** One file of an executor image's build context, addressed by its path inside `executor-image/`. */
export interface ContextFile {
  /** POSIX path relative to the images dir, e.g. `agents/python/agent.py`. */
  path: string;
  executable: boolean;
  content: Buffer;
}

/** Never part of a context or its hash: tests and local caches. */
const EXCLUDED = [
  /\.test\.(ts|tsx|mts|js|mjs|cjs)$/,
  /(^|\/)__pycache__(\/|$)/,
  /\.py[co]$/,
  /(^|\/)node_modules(\/|$)/,
  /(^|\/)\.DS_Store$/,
];

/** Fixed so the same files always make the same tar. */
const CONTEXT_MTIME = new Date('2020-01-01T00:00:00Z');
const HASH_VERSION = 'sandpit-executor-image/1';

export function isExcluded(path: string): boolean {
  return EXCLUDED.some((pattern) => pattern.test(path));
}

async function walk(root: string, relative: string, into: Map<string, ContextFile>): Promise<void> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  for (const entry of entries) {
    const path = posix.join(relative, entry.name);
    if (isExcluded(path)) continue;
    const absolute = join(root, path);
    const stat = await lstat(absolute);
    if (stat.isDirectory()) await walk(root, path, into);
    else if (stat.isFile())
      into.set(path, { path, executable: (stat.mode & 0o111) !== 0, content: await readFile(absolute) });
    else
      throw new SandpitError(
        'INVALID_INPUT',
        `${absolute} is neither a regular file nor a directory; the image context takes only those`,
      );
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The agent directory a flavour's image copies from, relative to the images dir. */
export function agentDir(definition: FlavourDefinition): string {
  return `agents/${definition.language}`;
}

/** The Dockerfile's path inside the context. */
export function dockerfilePath(definition: FlavourDefinition): string {
  return `${definition.dockerfileDir}/Dockerfile`;
}

/** The flavour's Dockerfile dir and agent dir (tests and caches left out), sorted by path. */
export async function collectContextFiles(imagesDir: string, definition: FlavourDefinition): Promise<ContextFile[]> {
  const files = new Map<string, ContextFile>();
  for (const dir of [definition.dockerfileDir, agentDir(definition)]) {
    if (!(await isDirectory(join(imagesDir, dir)))) {
      throw new SandpitError('IMAGE_MISSING', `The image source directory ${join(imagesDir, dir)} does not exist`);
    }
    await walk(imagesDir, dir, files);
  }
  if (!files.has(dockerfilePath(definition))) {
    throw new SandpitError('IMAGE_MISSING', `There is no Dockerfile at ${join(imagesDir, dockerfilePath(definition))}`);
  }
  return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** sha256 (hex) over the flavour, the base image tag and id, and every context file's path, mode and content. */
export function executorImageHash(
  flavour: string,
  base: { tag: string; id: string },
  files: readonly ContextFile[],
): string {
  const hash = createHash('sha256');
  hash.update(`${HASH_VERSION}\nflavour ${flavour}\nbase ${base.tag} ${base.id}\n`);
  for (const file of files) {
    const digest = createHash('sha256').update(file.content).digest('hex');
    hash.update(`file ${JSON.stringify(file.path)} ${file.executable ? '755' : '644'} ${digest}\n`);
  }
  return hash.digest('hex');
}

/** A tar of the files (regular files only, root-owned, fixed mtime) for `DockerClient.buildImage`. */
export async function packContext(files: readonly ContextFile[]): Promise<Buffer> {
  const tar = pack();
  for (const file of files) {
    tar.entry(
      {
        name: file.path,
        type: 'file',
        mode: file.executable ? 0o755 : 0o644,
        mtime: CONTEXT_MTIME,
        uid: 0,
        gid: 0,
        uname: 'root',
        gname: 'root',
      },
      file.content,
    );
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
