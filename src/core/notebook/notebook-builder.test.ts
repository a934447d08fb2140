import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../shared/domain/artifact';
import type { AuditEntry } from '../../shared/domain/audit';
import { validateNotebook } from '../../test-support/nbformat';
import { buildNotebook, multiline, notebookFileName } from './notebook-builder';
import type { ArtifactLoader, NotebookCell } from './notebook-builder';

const DOT_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_SHA = 'a'.repeat(64);
const CSV_SHA = 'b'.repeat(64);

let nextId = 1;
function row(change: Partial<AuditEntry>): AuditEntry {
  const id = nextId++;
  return {
    id,
    method: 'sessions.execute',
    startedAt: `2030-01-01T00:00:0${id}.000Z`,
    finishedAt: `2030-01-01T00:00:0${id}.500Z`,
    transport: 'mcp-stdio',
    client: 'test',
    sessionId: 's-1',
    code: 'print(1)',
    status: 'ok',
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    artifacts: [],
    openSeq: id * 2 - 1,
    openHash: 'f'.repeat(64),
    closeSeq: id * 2,
    closeHash: 'e'.repeat(64),
    ...change,
  };
}

const artifacts: Record<string, { artifact: Artifact; content: Buffer }> = {
  [PNG_SHA]: {
    artifact: { sha256: PNG_SHA, path: 'outputs/abc-1.png', mime: 'image/png', size: 68, sessionId: 's-1', createdAt: '2030-01-01T00:00:00Z' },
    content: Buffer.from(DOT_PNG, 'base64'),
  },
  [CSV_SHA]: {
    artifact: { sha256: CSV_SHA, path: 'table.csv', mime: 'text/csv', size: 4, sessionId: 's-1', createdAt: '2030-01-01T00:00:00Z' },
    content: Buffer.from('a,b\n'),
  },
};
const load: ArtifactLoader = async (sha) => artifacts[sha];

function code(cell: NotebookCell | undefined): Extract<NotebookCell, { cell_type: 'code' }> {
  if (cell?.cell_type !== 'code') throw new Error('not a code cell');
  return cell;
}

describe('buildNotebook', () => {
  it('turns a session\'s rows into cells that nbformat\'s own validator accepts', async () => {
    const rows = [
      row({ code: 'print("hello")\nx = 1', stdout: 'hello\n', result: '41' }),
      row({
        code: '1/0',
        status: 'error',
        errorMessage: 'ZeroDivisionError: division by zero\nTraceback (most recent call last):\n  File "<cell-2>", line 1, in <module>\nZeroDivisionError: division by zero\n',
      }),
      row({ code: 'plot()', artifacts: [PNG_SHA, CSV_SHA, 'c'.repeat(64)] }),
      row({ method: 'sessions.runCommand', code: 'ls -l', stdout: 'total 0\n', stderr: 'warn\n', exitCode: 0 }),
      row({ method: 'packages.install', code: 'numpy\nrequests==2.0', stdout: 'numpy: installed 2.1\n' }),
      row({ code: 'rm -rf /', status: 'denied', errorCode: 'DENIED', errorMessage: 'The person said no.' }),
      row({ method: 'sessions.runFile', code: 'main.py', fileContent: 'print(2)\n', stdout: '2\n' }),
    ];
    const notebook = await buildNotebook({ sessionId: 's-1', name: 'Python 1', language: 'python', rows, artifact: load });
    const verdict = validateNotebook(JSON.stringify(notebook));
    expect(verdict.output).not.toMatch(/Error/);
    expect(verdict.ok).toBe(true);
    expect(verdict.validator?.version).toEqual([4, 5]);

    expect(notebook.metadata.kernelspec.name).toBe('python3');
    expect(notebook.metadata.language_info.name).toBe('python');
    const [header, ...cells] = notebook.cells;
    expect(header?.cell_type).toBe('markdown');
    expect(cells.map((c) => code(c).execution_count)).toEqual([1, 2, 3, 4, 5, null, 6]);

    const first = code(cells[0]);
    expect(first.source).toEqual(['print("hello")\n', 'x = 1']);
    expect(first.outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: ['hello\n'] },
      { output_type: 'execute_result', execution_count: 1, data: { 'text/plain': ['41'] }, metadata: {} },
    ]);
    expect(first.metadata).toMatchObject({ sandpit: { auditId: rows[0]!.id, status: 'ok', method: 'sessions.execute' } });

    expect(code(cells[1]).outputs).toEqual([
      {
        output_type: 'error',
        ename: 'ZeroDivisionError',
        evalue: 'division by zero',
        traceback: ['Traceback (most recent call last):', '  File "<cell-2>", line 1, in <module>', 'ZeroDivisionError: division by zero'],
      },
    ]);

    const picture = code(cells[2]);
    expect(picture.outputs).toEqual([
      { output_type: 'display_data', data: { 'image/png': DOT_PNG, 'text/plain': ['outputs/abc-1.png'] }, metadata: { sandpit: { path: 'outputs/abc-1.png', sha256: PNG_SHA } } },
    ]);
    expect((picture.metadata.sandpit as { artifacts: unknown[] }).artifacts).toEqual([
      { sha256: PNG_SHA, path: 'outputs/abc-1.png', mime: 'image/png', size: 68 },
      { sha256: CSV_SHA, path: 'table.csv', mime: 'text/csv', size: 4 },
      { sha256: 'c'.repeat(64), missing: true },
    ]);

    expect(code(cells[3]).source).toEqual(['%%bash\n', 'ls -l']);
    expect(code(cells[3]).outputs.map((o) => o.output_type === 'stream' && o.name)).toEqual(['stdout', 'stderr']);
    expect(code(cells[4]).source).toEqual(['%pip install numpy requests==2.0']);
    expect(code(cells[5]).outputs).toEqual([{ output_type: 'error', ename: 'DENIED', evalue: 'The person said no.', traceback: ['The person said no.'] }]);
    expect(code(cells[6]).source).toEqual(['print(2)\n']);
    expect(code(cells[6]).metadata).toMatchObject({ sandpit: { path: 'main.py' } });
  });

  it('keeps an error value of several lines whole, and a JavaScript stack as the traceback', async () => {
    const notebook = await buildNotebook({
      sessionId: 's-4',
      language: 'python',
      rows: [
        row({ status: 'error', errorMessage: 'ValueError: first\nsecond\nTraceback (most recent call last):\n  File "<cell-1>", line 1, in <module>\nValueError: first\nsecond\n' }),
        row({ status: 'error', errorMessage: 'ReferenceError: x is not defined\nReferenceError: x is not defined\n    at <cell-1>:1:1' }),
        row({ status: 'timeout', errorMessage: 'The run took longer than 30 s and was stopped.' }),
        row({ method: 'sessions.runCommand', status: 'error', exitCode: 2, stderr: 'ls: no such file\n' }),
      ],
      artifact: load,
    });
    const errors = notebook.cells.slice(1).map((c) => code(c).outputs.find((o) => o.output_type === 'error'));
    expect(errors[0]).toEqual({
      output_type: 'error',
      ename: 'ValueError',
      evalue: 'first\nsecond',
      traceback: ['Traceback (most recent call last):', '  File "<cell-1>", line 1, in <module>', 'ValueError: first', 'second'],
    });
    expect(errors[1]).toEqual({ output_type: 'error', ename: 'ReferenceError', evalue: 'x is not defined', traceback: ['ReferenceError: x is not defined', '    at <cell-1>:1:1'] });
    expect(errors[2]).toEqual({ output_type: 'error', ename: 'Timeout', evalue: 'The run took longer than 30 s and was stopped.', traceback: ['The run took longer than 30 s and was stopped.'] });
    // A command that exited non-zero shows its stderr; there is no exception to show.
    expect(errors[3]).toBeUndefined();
    expect(validateNotebook(JSON.stringify(notebook)).ok).toBe(true);
  });

  it('uses the session language\'s kernel, and plain cells for bash', async () => {
    const js = await buildNotebook({ sessionId: 's-2', language: 'javascript', rows: [row({ code: 'console.log(1)', stdout: '1\n' })], artifact: load });
    expect(js.metadata.kernelspec).toEqual({ name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' });
    const bash = await buildNotebook({ sessionId: 's-3', language: 'bash', rows: [row({ method: 'sessions.runCommand', code: 'echo hi', stdout: 'hi\n' })], artifact: load });
    expect(bash.metadata.kernelspec.name).toBe('bash');
    expect(code(bash.cells[1]).source).toEqual(['echo hi']);
    for (const notebook of [js, bash]) expect(validateNotebook(JSON.stringify(notebook)).ok).toBe(true);
  });

  it("opens with IRkernel in an R session: R's own calls for installs, checks and shell commands, a plot as a picture", async () => {
    const rows = [
      row({ code: 'x <- c(2, 4, 9)\nmean(x)', stdout: '[1] 5\n' }),
      row({ code: 'plot(x)', artifacts: [PNG_SHA] }),
      row({ code: 'f <- function() stop("boom")\nf()', status: 'error', errorMessage: 'simpleError: boom\nError in f() : boom' }),
      row({ method: 'packages.install', code: 'sandpitdemo\ndata.table', stdout: 'sandpitdemo: installed\n' }),
      row({ method: 'packages.check', code: 'MASS', stdout: 'MASS 7.3-58.2\n' }),
      row({ method: 'sessions.runCommand', code: 'echo "hi there"', stdout: 'hi there\n', exitCode: 0 }),
      row({ method: 'processes.start', code: 'python3 -m http.server 8000' }),
      row({ method: 'sessions.runFile', code: 'analysis.R', fileContent: 'summary(x)\n', stdout: 'Min.\n' }),
    ];
    const notebook = await buildNotebook({ sessionId: 's-4', name: 'R 1', language: 'r', rows, artifact: load });
    expect(notebook.metadata.kernelspec).toEqual({ name: 'ir', display_name: 'R', language: 'R' });
    expect(notebook.metadata.language_info).toMatchObject({ name: 'R', file_extension: '.r', mimetype: 'text/x-r-source', codemirror_mode: 'r', pygments_lexer: 'r' });
    const sources = notebook.cells.filter((c) => c.cell_type === 'code').map((c) => c.source.join(''));
    expect(sources).toEqual([
      'x <- c(2, 4, 9)\nmean(x)',
      'plot(x)',
      'f <- function() stop("boom")\nf()',
      'install.packages(c("sandpitdemo", "data.table"))',
      'packageVersion("MASS")',
      'system("echo \\"hi there\\"")',
      'system("python3 -m http.server 8000", wait = FALSE)',
      'summary(x)\n',
    ]);
    expect(code(notebook.cells.find((c) => c.cell_type === 'code' && c.source.join('') === 'plot(x)')).outputs[0]).toMatchObject({ output_type: 'display_data', data: { 'image/png': DOT_PNG } });
    const verdict = validateNotebook(JSON.stringify(notebook));
    expect(verdict.ok, verdict.output).toBe(true);
  });

  it('refuses to call a broken notebook valid (the validator is real)', () => {
    const verdict = validateNotebook(JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'code', source: 'x' }] }));
    expect(verdict.ok).toBe(false);
    expect(verdict.output).toMatch(/ValidationError|not valid/i);
  });

  it('stores text as nbformat lines, and names files safely', () => {
    expect(multiline('a\nb\n')).toEqual(['a\n', 'b\n']);
    expect(multiline('a')).toEqual(['a']);
    expect(multiline('')).toEqual([]);
    expect(notebookFileName('s-1', 'My "data" / run')).toBe('My-data-run.ipynb');
    expect(notebookFileName('s-1')).toBe('session-s-1.ipynb');
  });
});
