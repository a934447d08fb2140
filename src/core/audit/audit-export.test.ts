import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditFixture, start } from '../../test-support/audit';
import type { AuditFixture } from '../../test-support/audit';
import { CSV_COLUMNS, csvField } from './audit-export';
import type { AuditStore } from './audit-store';

/** A small RFC 4180 reader (quoted fields with commas, doubled quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += c;
  }
  return rows;
}

let fx: AuditFixture;
let store: AuditStore;
const tricky = 'a, b\n"quoted" line\r\nend';
beforeEach(() => {
  fx = auditFixture();
  store = fx.open();
  const first = store.begin(start({ code: tricky }));
  store.complete(first.id, { status: 'error', stdout: 'x,y\n', stderr: '=HYPERLINK("http://evil")', artifacts: ['a'.repeat(64), 'b'.repeat(64)], errorMessage: 'boom' });
  const second = store.begin(start({ code: 'print(2)', client: 'other' }));
  store.complete(second.id, {
    status: 'ok',
    exitCode: 0,
    sandbox: { isolation: 'standard', sessionName: 'Sales figures', secrets: ['openai', 'github'] },
    folders: [
      { name: 'data', hostPath: '/home/me/data', mountPath: '/workspace/shared/data', mode: 'ro' },
      { name: 'out', hostPath: '/home/me/out', mountPath: '/workspace/out', mode: 'rw' },
    ],
  });
});
afterEach(() => fx.cleanup());

describe('audit export', () => {
  it('writes JSONL: one complete row per line', () => {
    const exported = store.export('jsonl', {}, 100);
    expect(exported).toMatchObject({ rows: 2, truncated: false });
    const lines = exported.content.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ id: 1, code: tricky, status: 'error', stdout: 'x,y\n', artifacts: ['a'.repeat(64), 'b'.repeat(64)] });
    expect(lines[0]?.closeHash).toMatch(/^[a-f0-9]{64}$/);
    expect(lines[1]).toMatchObject({ id: 2, exitCode: 0, folders: [{ mountPath: '/workspace/shared/data', mode: 'ro' }, { mountPath: '/workspace/out', mode: 'rw' }] });
  });

  it('writes CSV with a header, quoting commas, quotes and line breaks', () => {
    const { content, rows } = store.export('csv', {}, 100);
    expect(rows).toBe(2);
    const table = parseCsv(content);
    expect(table).toHaveLength(3);
    const at = (row: number, column: string): string | undefined => table[row]?.[CSV_COLUMNS.findIndex(([c]) => c === column)];
    expect(at(1, 'id')).toBe('1');
    expect(at(1, 'code')).toBe(tricky);
    expect(at(1, 'stdout')).toBe('x,y\n');
    expect(at(1, 'artifacts')).toBe(`${'a'.repeat(64)} ${'b'.repeat(64)}`);
    expect(at(1, 'exitCode')).toBe('');
    expect(at(1, 'errorMessage')).toBe('boom');
    // A formula from a program is never evaluated by a spreadsheet.
    expect(at(1, 'stderr')).toBe('\'=HYPERLINK("http://evil")');
    expect(at(2, 'exitCode')).toBe('0');
    // The folders a run had, one per line, and how.
    expect(at(1, 'folders')).toBe('');
    expect(at(2, 'folders')).toBe('/home/me/data -> /workspace/shared/data (read-only)\n/home/me/out -> /workspace/out (read and write)');
  });

  it('says in CSV what a person reads: plain headings, kinds, outcomes and the session by name', () => {
    const table = parseCsv(store.export('csv', {}, 100).content);
    const header = table[0] ?? [];
    expect(header.slice(0, 12)).toEqual(['Row', 'Kind of run', 'Started', 'Ended', 'Took (ms)', 'Outcome', 'Exit code', 'Assistant or app', 'Connected how', 'Access key used', 'Session', 'Session number']);
    // No developer field names in the headings.
    for (const word of ['method', 'principal', 'sessionId', 'status', 'ok']) expect(header).not.toContain(word);
    const row = (n: number): Record<string, string | undefined> => Object.fromEntries(header.map((h, i) => [h, table[n]?.[i]]));
    expect(row(1)).toMatchObject({ 'Kind of run': 'Code', Outcome: 'Failed', 'Connected how': 'connected while Sandpit runs', 'Output cut short': 'no' });
    expect(row(2)).toMatchObject({ Outcome: 'Finished', Session: 'Sales figures', 'Session number': 'ses-1', 'Assistant or app': 'other' });
    // The secrets a run's session could use, by name, under a plain heading (empty where it could use none).
    expect(row(2)['Secrets it could use']).toBe('openai, github');
    expect(row(1)['Secrets it could use']).toBe('');
    // JSONL keeps the field names and values, for machines.
    const json = JSON.parse(store.export('jsonl', {}, 100).content.split('\n')[1] ?? '{}') as Record<string, unknown>;
    expect(json).toMatchObject({ method: 'sessions.execute', status: 'ok', sessionId: 'ses-1', principal: 'p1' });
  });

  it('applies the filters and reports truncation at the row limit and the size cap', () => {
    expect(store.export('jsonl', { filters: { client: 'other' } }, 100)).toMatchObject({ rows: 1, truncated: false });
    expect(store.export('jsonl', {}, 1)).toMatchObject({ rows: 1, truncated: true });
    const capped = store.export('csv', {}, 100, 400);
    expect(capped.truncated).toBe(true);
    expect(capped.rows).toBeLessThan(2);
  });

  it('quotes single fields as RFC 4180 says', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('-1', false)).toBe('-1');
    expect(csvField('+cmd')).toBe("'+cmd");
    expect(csvField('@x, y')).toBe('"\'@x, y"');
  });
});
