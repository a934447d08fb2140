import { SandpitError } from '../../shared/api/errors';

/** The folders above a normalized relative path, outermost first: `a/b/c` → `a`, `a/b`. */
export function parentsOf(path: string): string[] {
  const parents: string[] = [];
  let index = path.indexOf('/');
  while (index !== -1) {
    parents.push(path.slice(0, index));
    index = path.indexOf('/', index + 1);
  }
  return parents;
}

/**
 * The names of one archive, so that it can never describe the same path twice or a path both as
 * a file and as a folder (`a` a file and `a/b` another). Paths must already be normalized.
 */
export class PathSet {
  private readonly files = new Set<string>();
  /** Folders named explicitly by an entry. */
  private readonly folders = new Set<string>();
  /** Folders named explicitly or implied by a deeper path. */
  private readonly impliedFolders = new Set<string>();

  addFile(path: string): void {
    if (this.files.has(path) || this.folders.has(path)) this.refuse(path, 'it appears twice in the archive');
    if (this.impliedFolders.has(path)) this.refuse(path, 'it is both a file and a folder');
    this.addParents(path);
    this.files.add(path);
  }

  addFolder(path: string): void {
    if (this.files.has(path) || this.folders.has(path)) this.refuse(path, 'it appears twice in the archive');
    this.addParents(path);
    this.folders.add(path);
    this.impliedFolders.add(path);
  }

  private addParents(path: string): void {
    for (const parent of parentsOf(path)) {
      if (this.files.has(parent)) this.refuse(path, `its folder "${parent}" is a file`);
      this.impliedFolders.add(parent);
    }
  }

  private refuse(path: string, why: string): never {
    throw new SandpitError('INVALID_INPUT', `Path ${JSON.stringify(path)} is not allowed: ${why}`, { path });
  }
}
