import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../shared/domain/artifact';
import type { ExecutionResult } from '../../shared/domain/execution';
import { consoleTables, MAX_TABLE_CHARS, MAX_TABLES, tablesMeta } from './console-tables';

const PANDAS = '<div><style scoped>.dataframe tbody tr th {vertical-align: top;}</style><table border="1" class="dataframe"><thead><tr><th></th><th>a</th></tr></thead><tbody><tr><th>0</th><td>1</td></tr></tbody></table></div>';

function artifact(path: string, mime: string, size: number, sha256: string): Artifact {
  return { sha256, path, mime, size, sessionId: 'ses-1', executionId: 'run-abc', createdAt: '2026-12-06T00:00:00.000Z' };
}

function result(displays: ExecutionResult['displays'], artifacts: Artifact[]): ExecutionResult {
  return { executionId: 'run-abc', sessionId: 'ses-1', status: 'ok', stdout: '', stderr: '', displays, truncated: { stdout: false, stderr: false }, durationMs: 1, files: [], artifacts, stateLost: false };
}

describe('the tables a run hands to the console', () => {
  it('takes HTML displays that hold a table, CSV displays and saved CSV files, and nothing else', async () => {
    const files: Record<string, string> = { c1: 'month,visits\nJan,120\n' };
    const tables = await consoleTables(
      result(
        [
          { mime: 'text/html', data: PANDAS, encoding: 'utf8' },
          { mime: 'text/html', data: '<b>not a table</b>', encoding: 'utf8' },
          { mime: 'image/png', data: 'iVBOR', encoding: 'base64' },
          { mime: 'text/csv; charset=utf-8', data: 'x,y\n1,2\n', encoding: 'utf8' },
        ],
        [artifact('visits.csv', 'text/csv', 22, 'c1'), artifact('notes.txt', 'text/plain', 5, 't1')],
      ),
      async (sha) => Buffer.from(files[sha] ?? 'unexpected read'),
    );
    expect(tables).toEqual([
      { name: 'Shown by the run (1 of 2)', mime: 'text/html', text: PANDAS },
      { name: 'Shown by the run (2 of 2)', mime: 'text/csv', text: 'x,y\n1,2\n' },
      { name: 'visits.csv', mime: 'text/csv', text: 'month,visits\nJan,120\n' },
    ]);
    expect(tablesMeta(tables)).toEqual({ 'dev.sandpit/tables': tables });
    expect(tablesMeta([])).toBeUndefined();
  });

  it('leaves out what is too big, and stops at the most tables one result carries', async () => {
    const big = `<table>${'x'.repeat(MAX_TABLE_CHARS)}</table>`;
    const many = Array.from({ length: MAX_TABLES + 3 }, () => ({ mime: 'text/csv', data: 'a,b\n1,2', encoding: 'utf8' as const }));
    let reads = 0;
    const tables = await consoleTables(result([{ mime: 'text/html', data: big, encoding: 'utf8' }, ...many], [artifact('huge.csv', 'text/csv', MAX_TABLE_CHARS + 1, 'h')]), async () => {
      reads += 1;
      return Buffer.from('');
    });
    expect(tables).toHaveLength(MAX_TABLES);
    expect(tables.every((t) => t.mime === 'text/csv')).toBe(true);
    expect(reads).toBe(0);
  });
});
