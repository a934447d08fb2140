import { SandpitError } from '../../shared/api/errors';
import type { ImportedDependencies } from '../../shared/domain/environment';
import { importEnvironmentYml } from './import-environment-yml';
import { importPackageJson } from './import-package-json';
import { importRequirements } from './import-requirements';

export interface ImportOptions {
  /** package.json: import devDependencies too. */
  includeDev?: boolean;
}

/** Larger files are refused before parsing. */
export const MAX_IMPORT_BYTES = 1024 * 1024;

const KNOWN = 'requirements*.txt, requirements*.in, package.json, environment.yml or environment.yaml';

/**
 * Reads a dependency file chosen by its name (folders are ignored): requirements*.txt (and pip-tools'
 * requirements*.in) and environment.yml/.yaml imply python, package.json implies javascript.
 * Throws INVALID_INPUT for an unknown name, an oversized file or a malformed line (named).
 */
export function importDependencies(fileName: string, content: string, options: ImportOptions = {}): ImportedDependencies {
  const base = (fileName.split(/[\\/]/).pop() ?? '').toLowerCase();
  if (Buffer.byteLength(content, 'utf8') > MAX_IMPORT_BYTES) {
    throw new SandpitError('INVALID_INPUT', `${base || 'The file'} is larger than ${MAX_IMPORT_BYTES / 1024} KiB`);
  }
  if (/^requirements.*\.(?:txt|in)$/.test(base)) {
    const { packages, unsupported } = importRequirements(content);
    return { language: 'python', packages: { pip: packages.pip, npm: [] }, unsupported };
  }
  if (base === 'package.json') {
    const { name, packages, unsupported } = importPackageJson(content, options);
    return { language: 'javascript', ...(name === undefined ? {} : { name }), packages: { pip: [], npm: packages.npm }, unsupported };
  }
  if (base === 'environment.yml' || base === 'environment.yaml') {
    const { name, packages, unsupported } = importEnvironmentYml(content);
    return { language: 'python', ...(name === undefined ? {} : { name }), packages: { pip: packages.pip, npm: [] }, unsupported };
  }
  throw new SandpitError('INVALID_INPUT', `Cannot import "${fileName}": use ${KNOWN}`, { fileName });
}
