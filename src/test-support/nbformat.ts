import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Jupyter's own validator: `nbformat.validate` (the nbformat package's JSON schema for the notebook's version) in a
 * host Python. Debian's python3-nbformat (`apt-get install python3-nbformat`, which .ci/run installs) lives in the
 * system python3, so that one is tried first.
 */
const PYTHONS = ['/usr/bin/python3', 'python3'];

const SCRIPT = `
import json, sys
import nbformat
text = sys.stdin.read()
nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
nbformat.validate(nb)
print(json.dumps({"nbformat": nbformat.__version__, "version": [nb.nbformat, nb.nbformat_minor]}))
`;

export interface NbformatVerdict {
  ok: boolean;
  /** The validator's own words when it refused the notebook (or could not run). */
  output: string;
  /** The nbformat package that judged it, and the notebook's version, when it ran. */
  validator?: { nbformat: string; version: [number, number] };
}

function pythonWithNbformat(): string | undefined {
  for (const python of PYTHONS) {
    if (python.startsWith('/') && !existsSync(python)) continue;
    const probe = spawnSync(python, ['-c', 'import nbformat'], { encoding: 'utf8', timeout: 30_000 });
    if (probe.status === 0) return python;
  }
  return undefined;
}

/** Validates notebook JSON text with nbformat; throws when no Python with nbformat is installed (never skips). */
export function validateNotebook(text: string): NbformatVerdict {
  const python = pythonWithNbformat();
  if (!python) throw new Error('No python3 with the nbformat package: apt-get install -y python3-nbformat (as .ci/run does).');
  const run = spawnSync(python, ['-c', SCRIPT], { input: text, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) return { ok: false, output: `${run.stdout}${run.stderr}${run.error ? String(run.error) : ''}` };
  return { ok: true, output: run.stdout, validator: JSON.parse(run.stdout.trim()) as NbformatVerdict['validator'] };
}
