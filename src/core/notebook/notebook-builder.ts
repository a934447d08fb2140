import type { Artifact } from '../../shared/domain/artifact';
import type { AuditEntry } from '../../shared/domain/audit';
import type { Language } from '../../shared/domain/languages';
import { LANGUAGE_ENTRIES, packageManagerOf } from '../../shared/domain/languages';
import type { NotebookKernel } from '../../shared/domain/languages';
import { PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import { isImageMime } from '../files/mime';
import { errorOutput } from './notebook-error';
import type { NotebookErrorOutput } from './notebook-error';

/** nbformat 4.5: the version every notebook is written in (cell ids are required from 4.5 on). */
export const NBFORMAT = 4;
export const NBFORMAT_MINOR = 5;
export const NOTEBOOK_MIME = 'application/x-ipynb+json';

type MultilineString = string[];

type NotebookOutput =
  | { output_type: 'stream'; name: 'stdout' | 'stderr'; text: MultilineString }
  | { output_type: 'display_data'; data: Record<string, string | MultilineString>; metadata: Record<string, unknown> }
  | { output_type: 'execute_result'; execution_count: number | null; data: Record<string, string | MultilineString>; metadata: Record<string, unknown> }
  | NotebookErrorOutput;

export type NotebookCell =
  | { id: string; cell_type: 'markdown'; metadata: Record<string, unknown>; source: MultilineString }
  | { id: string; cell_type: 'code'; metadata: Record<string, unknown>; source: MultilineString; execution_count: number | null; outputs: NotebookOutput[] };

export interface Notebook {
  nbformat: number;
  nbformat_minor: number;
  metadata: Pick<NotebookKernel, 'kernelspec' | 'language_info'> & { sandpit: Record<string, unknown> };
  cells: NotebookCell[];
}

/** An artifact and its bytes, or undefined when the store no longer has it. */
export type ArtifactLoader = (sha256: string) => Promise<{ artifact: Artifact; content: Buffer } | undefined>;

export interface NotebookInput {
  sessionId: string;
  /** The session's name, when it is known. */
  name?: string;
  language: Language;
  /** The session's audit rows, oldest first. */
  rows: readonly AuditEntry[];
  artifact: ArtifactLoader;
  /** The session's rows went past the notebook's row limit: the notebook says so. */
  moreRows?: boolean;
}

/** Text as nbformat stores it: lines, each but the last ending in "\n". */
export function multiline(text: string): MultilineString {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => `${line}\n`);
  const last = lines.length - 1;
  lines[last] = lines[last]!.slice(0, -1);
  return lines[last] === '' ? lines.slice(0, -1) : lines;
}

/** Mime types nbformat keeps as text (every other picture is base64). */
const TEXT_MIMES = new Set(['image/svg+xml', 'text/html']);

/** Whether a call actually ran in the sandbox (it gets an execution number) or never started. */
function ran(entry: AuditEntry): boolean {
  return entry.status !== 'denied' && entry.status !== 'failed' && entry.status !== 'running';
}

/**
 * What a cell's source is, per kind of call: the code as it ran; a shell command as a `%%bash` cell (IPython's
 * cell magic; a plain cell in a bash session; the kernel's own call where the registry gives one); run_file as the
 * content of the file that ran; an install as `%pip install …` (python), `pip install …` (bash) or a `%%bash` cell
 * with `npm install …` (javascript); a package check the same way with `pip show` / `npm ls`.
 */
function cellSource(entry: AuditEntry, language: Language): string {
  switch (entry.method) {
    case 'sessions.execute':
      return entry.code;
    case 'sessions.runCommand':
      return shellCell(entry.code, false, language);
    case 'sessions.runFile':
      return entry.fileContent ?? `# run_file ${entry.code}: the file's content was not recorded`;
    case 'packages.install':
    case 'packages.check':
      return packageCell(entry.method === 'packages.install' ? 'install' : 'check', entry.code.split('\n').filter((p) => p !== ''), language);
    case 'changes.apply':
    case 'changes.discard':
      // the person's review of a folder's changes: said, never run again
      return `# The person ${entry.method === 'changes.apply' ? 'applied' : 'discarded'} changes to a shared folder:\n${entry.code.split('\n').map((l) => `#   ${l}`).join('\n')}`;
    case 'processes.start':
      // IPython's background cell magic: the command keeps running while the notebook goes on.
      return shellCell(entry.code, true, language);
    case 'previews.open':
      return `# Sandpit showed a preview: ${entry.code}`;
  }
}

/** A shell command as a cell of the language's kernel: itself in a shell kernel, the kernel's own call, else IPython's `%%bash` magic. */
function shellCell(command: string, background: boolean, language: Language): string {
  const kernel = LANGUAGE_ENTRIES[language].notebook;
  if (kernel.cells === 'shell') return background ? `${command} &` : command;
  if (kernel.shell) return kernel.shell(command, background);
  return background ? `%%bash --bg\n${command}` : `%%bash\n${command}`;
}

/**
 * An install or a check as a cell, from the registries: the manager's own call in its language's kernel when it
 * has one (R's `install.packages(…)`), its command as IPython's line magic when the kernel has one for it
 * (`%pip install`), plain in a shell kernel (bash), else as a shell cell.
 */
function packageCell(kind: 'install' | 'check', packages: string[], language: Language): string {
  const manager = PACKAGE_MANAGERS[packageManagerOf(language)];
  const kernel = LANGUAGE_ENTRIES[language].notebook;
  if (manager.notebook.code && kernel.cells === 'plain') return manager.notebook.code[kind](packages);
  const command = `${manager.notebook[kind]} ${packages.join(' ')}`;
  if (kernel.cells === 'ipython' && manager.notebook.magic !== undefined) return `%${command}`;
  return shellCell(command, false, language);
}

async function artifactOutputs(entry: AuditEntry, load: ArtifactLoader): Promise<{ outputs: NotebookOutput[]; files: Array<Record<string, unknown>> }> {
  const outputs: NotebookOutput[] = [];
  const files: Array<Record<string, unknown>> = [];
  for (const sha256 of entry.artifacts) {
    const found = await load(sha256);
    if (!found) {
      files.push({ sha256, missing: true });
      continue;
    }
    const { artifact, content } = found;
    const mime = artifact.mime.split(';')[0]!.trim().toLowerCase();
    files.push({ sha256, path: artifact.path, mime, size: artifact.size });
    const shown = isImageMime(mime) || (mime === 'text/html' && artifact.path.startsWith('outputs/'));
    if (!shown) continue;
    const data = TEXT_MIMES.has(mime) ? multiline(content.toString('utf8')) : content.toString('base64');
    outputs.push({ output_type: 'display_data', data: { [mime]: data, 'text/plain': [artifact.path] }, metadata: { sandpit: { path: artifact.path, sha256 } } });
  }
  return { outputs, files };
}

function cellMetadata(entry: AuditEntry, files: Array<Record<string, unknown>>): Record<string, unknown> {
  const sandpit: Record<string, unknown> = {
    auditId: entry.id,
    method: entry.method,
    status: entry.status,
    startedAt: entry.startedAt,
    ...(entry.finishedAt ? { finishedAt: entry.finishedAt } : {}),
    ...(entry.durationMs !== undefined ? { durationMs: entry.durationMs } : {}),
    ...(entry.exitCode !== undefined ? { exitCode: entry.exitCode } : {}),
    ...(entry.client ? { client: entry.client } : {}),
    transport: entry.transport,
    ...(entry.method === 'sessions.runFile' ? { path: entry.code } : {}),
    ...(entry.stdoutTruncated || entry.stderrTruncated ? { outputCut: { stdout: entry.stdoutTruncated, stderr: entry.stderrTruncated } } : {}),
    ...(entry.replayOf !== undefined ? { replayOf: entry.replayOf } : {}),
    ...(files.length > 0 ? { artifacts: files } : {}),
    hash: entry.closeHash ?? entry.openHash,
  };
  const execution = entry.finishedAt ? { execution: { 'shell.execute_reply.started': entry.startedAt, 'shell.execute_reply': entry.finishedAt } } : {};
  return { ...execution, sandpit };
}

function header(input: NotebookInput, count: number): NotebookCell {
  const first = input.rows[0];
  const last = input.rows.at(-1);
  const environment = input.rows.find((r) => r.environment)?.environment;
  const lines = [
    `# ${input.name ?? `Session ${input.sessionId}`}`,
    '',
    `What ran in the Sandpit session \`${input.sessionId}\`${environment ? ` (environment ${environment})` : ''}, rebuilt from its audit log: ` +
      `${count} ${count === 1 ? 'call' : 'calls'}${first && last ? `, ${first.startedAt} to ${last.finishedAt ?? last.startedAt}` : ''}.`,
    '',
    'Each cell is one audit row (its id, status and chain hash are in the cell\'s `sandpit` metadata). Shell commands are `%%bash` cells, ' +
      'installs `%pip install` cells; calls that were refused or failed before running have no execution number.',
    ...(input.moreRows ? ['', `The session has more rows than a notebook holds; the first ${count} are here (Activity has them all).`] : []),
  ];
  return { id: 'sandpit-header', cell_type: 'markdown', metadata: {}, source: multiline(lines.join('\n')) };
}

/** A session's history as an nbformat 4.5 notebook: one code cell per audit row, with its outputs, in order. */
export async function buildNotebook(input: NotebookInput): Promise<Notebook> {
  const cells: NotebookCell[] = [header(input, input.rows.length)];
  let count = 0;
  for (const entry of input.rows) {
    const executionCount = ran(entry) ? ++count : null;
    const outputs: NotebookOutput[] = [];
    if (entry.stdout !== '') outputs.push({ output_type: 'stream', name: 'stdout', text: multiline(entry.stdout) });
    if (entry.stderr !== '') outputs.push({ output_type: 'stream', name: 'stderr', text: multiline(entry.stderr) });
    const { outputs: pictures, files } = await artifactOutputs(entry, input.artifact);
    outputs.push(...pictures);
    if (entry.result !== undefined) {
      outputs.push({ output_type: 'execute_result', execution_count: executionCount, data: { 'text/plain': multiline(entry.result) }, metadata: {} });
    }
    const error = errorOutput(entry);
    if (error) outputs.push(error);
    cells.push({
      id: `audit-${entry.id}`,
      cell_type: 'code',
      metadata: cellMetadata(entry, files),
      source: multiline(cellSource(entry, input.language)),
      execution_count: executionCount,
      outputs,
    });
  }
  const { kernelspec, language_info } = LANGUAGE_ENTRIES[input.language].notebook; // `cells` and `shell` are Sandpit's own, not nbformat's
  return {
    nbformat: NBFORMAT,
    nbformat_minor: NBFORMAT_MINOR,
    metadata: {
      kernelspec,
      language_info,
      sandpit: {
        sessionId: input.sessionId,
        language: input.language,
        languageLabel: LANGUAGE_ENTRIES[input.language].label,
        rows: input.rows.map((r) => r.id),
      },
    },
    cells,
  };
}

/** A file name for a session's notebook: its name (or id) in safe characters. */
export function notebookFileName(sessionId: string, name?: string): string {
  const base = (name ?? `session-${sessionId}`).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return `${base || 'session'}.ipynb`;
}
